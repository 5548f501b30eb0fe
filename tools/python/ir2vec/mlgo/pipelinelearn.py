# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Learned size-pipeline policies on ``PipelineEnv`` (docs/Pipeline.md,
"Learning"): a network scores the moves of ``pipelineenv.Actions`` from the
observation, and a policy plays the best legal move until it stops or the
horizon ends.

- ``bc_max``: BC-Max. For each training module, the configuration with the
  smallest ``.text`` among the search's best (``tune``, clang space) and the
  stock size settings' clang-space analogues, among those the horizon
  reaches from the start; the network learns the moves that lead there
  (cross-entropy over the legal moves).
- ``dqn``: double DQN with a target network, episodes of many modules
  played together (their compiles in parallel on the engine), the reward
  in percent of the start's ``.text``; optionally from BC-Max's weights.
- ``plan``: a policy's configuration for each module, from the
  observations alone (no compile: the observation does not depend on one).
- ``fit_values``: not on the environment but on its one-move relatives, the
  candidates of ``nearest`` (every one compiled on every training module):
  a network predicts each candidate's relative gain over the best fixed
  setting from the module's state, and the module takes the best predicted
  candidate when its gain exceeds a margin (``nearest.decide`` runs it,
  without PyTorch; so does the plugin's ``-irtk-pipeline-policy=model``).

Deterministic for a seed: PyTorch's generator, one thread and float64 in
training, and the modules and exploration drawn from ``random.Random``.
Needs PyTorch (Debian: python3-torch).
"""

import random

import numpy as np

from .nearest import relative_gains, scaling
from .pipeline import Config
from .pipelineenv import Episode
# torchmodel refuses to load without PyTorch, saying what to install.
from .torchmodel import Normalize, nn, torch
from .tune import start_config

FORMAT, VERSION = "irtk-pipeline-qnet", 1


class _Threads:
    """One PyTorch thread while training (the same sums in the same order
    on every machine), the caller's setting restored after."""

    def __enter__(self):
        self.before = torch.get_num_threads()
        torch.set_num_threads(1)

    def __exit__(self, *exc):
        torch.set_num_threads(self.before)


def network(env, hidden=(64, 64), seed=0):
    """An MLP from the observation to one score per move, its input
    normalised by the training modules' features (the configuration part
    is left as it is)."""
    torch.manual_seed(seed)
    feats = np.array([env.features[m] for m in env.modules], dtype=np.float64)
    mean, dev = scaling(feats)
    rest = env.observation_size - feats.shape[1]
    return _mlp(np.concatenate([mean, np.zeros(rest)]),
                np.concatenate([dev, np.ones(rest)]), hidden,
                len(env.actions))


def _mlp(mean, scale, hidden, outputs):
    """Normalize(mean, scale), then a Linear and ReLU per hidden width,
    then a Linear to outputs (float64), drawn from PyTorch's generator."""
    layers, width = [Normalize(mean, scale)], len(mean)
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers += [nn.Linear(width, outputs), nn.Identity()]
    return nn.Sequential(*layers).double()


def _scores(net, obs, masks):
    with torch.no_grad():
        q = net(torch.as_tensor(np.asarray(obs), dtype=torch.float64))
    q = q.numpy().copy()
    q[~np.asarray(masks)] = -np.inf
    return q


def plan(net, env, modules):
    """{module: (Config, [moves])}: the greedy policy's episode for each
    module, played on observations alone (ties to the lower move)."""
    eps = [Episode(m, env.features[m], env.start, 0, env.horizon)
           for m in modules]
    while True:
        live = [ep for ep in eps if not ep.done]
        if not live:
            break
        obs = [env.observation(ep) for ep in live]
        masks = [env.actions.mask(ep.config) for ep in live]
        picks = np.argmax(_scores(net, obs, masks), axis=1)
        for ep, a in zip(live, picks):
            ep.moves.append(int(a))
            cfg = env.actions.apply(ep.config, int(a))
            if cfg is None:
                ep.done = True
                continue
            ep.config = cfg
            ep.done = len(ep.moves) >= ep.horizon
    return {ep.module: (ep.config, ep.moves) for ep in eps}


# --- BC-Max -----------------------------------------------------------------------

def bc_max_targets(env, results, margin=0.0):
    """{module: (Config, text, [moves])}: each training module's best
    configuration the horizon reaches, from its clang-space search result
    (``tune``): every configuration the search compiled and the stock
    settings' analogues (their stock compiles' .text), the shortest path on
    a tie, then the first compiled. A module whose best saves no more than
    ``margin`` (a fraction of the start's .text) keeps the start: a move
    learnt from it would mostly be noise."""
    out = {}
    for r in results:
        if not r or r["module"] not in env.features:
            continue
        cands = [(Config.from_key(key), text)
                 for key, text in r["evaluated"] if text is not None]
        for name, text in sorted(r["settings"].items()):
            if text is not None:
                cands.append((start_config(name, env.actions.sp), text))
        best, start = None, None
        for cfg, text in cands:
            moves = env.actions.path(env.start, cfg)
            if moves is None or len(moves) - 1 > env.horizon:
                continue
            if len(moves) - 1 == env.horizon:
                moves = moves[:-1]  # the horizon ends it: no stop
            if best is None or (text, len(moves)) < (best[1], len(best[2])):
                best = (cfg, text, moves)
            if cfg == env.start and start is None:
                start = (cfg, text, moves)
        if best is not None and start is not None and \
                start[1] - best[1] <= margin * start[1]:
            best = start
        if best is not None:
            out[r["module"]] = best
    return out


def bc_max(env, targets, hidden=(64, 64), epochs=200, lr=1e-3,
           weight_decay=1e-4, seed=0):
    """The network trained to play each target's moves (full-batch Adam,
    cross-entropy over the legal moves)."""
    obs, acts, masks = [], [], []
    for m in sorted(targets):
        ep = Episode(m, env.features[m], env.start, 0, env.horizon)
        for a in targets[m][2]:
            obs.append(env.observation(ep))
            masks.append(env.actions.mask(ep.config))
            acts.append(a)
            ep.moves.append(a)
            cfg = env.actions.apply(ep.config, a)
            if cfg is not None:
                ep.config = cfg
    with _Threads():
        net = network(env, hidden, seed)
        x = torch.as_tensor(np.array(obs), dtype=torch.float64)
        y = torch.as_tensor(acts, dtype=torch.long)
        illegal = torch.as_tensor(~np.array(masks))
        opt = torch.optim.Adam(net.parameters(), lr=lr,
                               weight_decay=weight_decay)
        for _ in range(epochs):
            opt.zero_grad()
            logits = net(x).masked_fill(illegal, -1e9)
            loss = nn.functional.cross_entropy(logits, y)
            loss.backward()
            opt.step()
    return net


# --- DQN --------------------------------------------------------------------------

def dqn(env, rounds=20, batch=32, epsilon=(0.3, 0.05), updates=40,
        minibatch=64, lr=5e-4, sync=4, net=None, hidden=(64, 64), seed=0,
        on_round=None):
    """Double DQN over env's modules: each round plays ``batch`` episodes
    together (modules drawn without replacement, cycling), exploring with
    an epsilon going linearly from epsilon[0] to epsilon[1], then takes
    ``updates`` gradient steps on minibatches of all transitions so far;
    the target network follows every ``sync`` rounds. net: a network to
    start from (e.g. BC-Max's), copied. on_round(round, stats)."""
    rng = random.Random(seed)
    with _Threads():
        online = network(env, hidden, seed) if net is None else \
            _copy(net, env, hidden, seed)
        target = _copy(online, env, hidden, seed)
        opt = torch.optim.Adam(online.parameters(), lr=lr)
        memory = []  # (obs, action, reward, next obs, next mask, done)
        order = []
        for k in range(rounds):
            if len(order) < batch:
                more = list(env.modules)
                rng.shuffle(more)
                order += more
            modules, order = order[:batch], order[batch:]
            eps = rounds > 1 and epsilon[0] + (epsilon[1] - epsilon[0]) * \
                k / (rounds - 1) or epsilon[0]
            gained = _play(env, online, modules, eps, rng, memory)
            for _ in range(updates):
                _update(online, target, opt, memory, minibatch, rng)
            if (k + 1) % sync == 0:
                target.load_state_dict(online.state_dict())
            if on_round:
                on_round(k, {"epsilon": eps, "gain": gained,
                             "transitions": len(memory),
                             "compiles": env.compiles})
    return online


def _copy(net, env, hidden, seed):
    twin = network(env, hidden, seed)
    twin.load_state_dict(net.state_dict())
    return twin


def _play(env, net, modules, eps, rng, memory):
    """Plays the modules' episodes together; the mean relative gain."""
    live = [ep for ep in env.begin(modules) if not ep.done]
    total = 0.0
    n = len(live)
    while live:
        obs = [env.observation(ep) for ep in live]
        masks = [env.actions.mask(ep.config) for ep in live]
        scores = _scores(net, obs, masks)
        acts = []
        for s, mask in zip(scores, masks):
            if rng.random() < eps:
                acts.append(rng.choice(np.flatnonzero(mask).tolist()))
            else:
                acts.append(int(np.argmax(s)))
        outcomes = env.advance(live, acts)
        for ep, o, a, m, (r, term, trunc) in zip(live, obs, acts, masks,
                                                  outcomes):
            r = 100.0 * r if env.reward_kind == "relative" else r
            total += r
            memory.append((o, a, r, env.observation(ep),
                           env.actions.mask(ep.config), term or trunc))
        live = [ep for ep in live if not ep.done]
    return total / max(n, 1)


def _update(online, target, opt, memory, size, rng):
    if not memory:
        return
    batch = [memory[rng.randrange(len(memory))] for _ in range(size)]
    obs, acts, rew, nxt, nmask, done = zip(*batch)
    x = torch.as_tensor(np.array(obs), dtype=torch.float64)
    x2 = torch.as_tensor(np.array(nxt), dtype=torch.float64)
    illegal = torch.as_tensor(~np.array(nmask))
    with torch.no_grad():
        pick = online(x2).masked_fill(illegal, -1e9).argmax(dim=1)
        ahead = target(x2).gather(1, pick[:, None])[:, 0]
        y = torch.as_tensor(rew, dtype=torch.float64) + ahead * \
            (1.0 - torch.as_tensor(done, dtype=torch.float64))
    q = online(x).gather(1, torch.as_tensor(acts)[:, None])[:, 0]
    loss = nn.functional.smooth_l1_loss(q, y)
    opt.zero_grad()
    loss.backward()
    opt.step()


# --- The candidates' values -------------------------------------------------------

def fit_values(x, text, base, hidden=(32,), epochs=300, lr=1e-3,
               weight_decay=1e-3, seed=0):
    """A network from states x (one row a training module) to each
    candidate's relative gain over column ``base`` of text (the modules'
    .text under each candidate): (text[base] - text) / text[base]. Trained
    in percent (Adam, full batch, Huber loss), its last layer then scaled
    back to fractions. Its first module normalises the state by x's mean and
    deviation."""
    x = np.asarray(x, dtype=np.float64)
    text = np.asarray(text, dtype=np.float64)
    gain = relative_gains(text, base, 100.0)
    mean, dev = scaling(x)
    with _Threads():
        torch.manual_seed(seed)
        net = _mlp(mean, dev, hidden, text.shape[1])
        xs, ys = torch.as_tensor(x), torch.as_tensor(gain)
        opt = torch.optim.Adam(net.parameters(), lr=lr,
                               weight_decay=weight_decay)
        for _ in range(epochs):
            opt.zero_grad()
            loss = nn.functional.smooth_l1_loss(net(xs), ys)
            loss.backward()
            opt.step()
        with torch.no_grad():
            net[-2].weight /= 100.0
            net[-2].bias /= 100.0
    return net


def layers_doc(net):
    """The network as a document: {"mean", "scale", "layers": [{"weight",
    "bias", "activation"}]} (float64; activation relu or linear)."""
    doc = {"layers": []}
    for mod in net:
        if isinstance(mod, Normalize):
            doc["mean"], doc["scale"] = mod.mean.tolist(), mod.scale.tolist()
        elif isinstance(mod, nn.Linear):
            doc["layers"].append({"weight": mod.weight.detach().tolist(),
                                  "bias": mod.bias.detach().tolist(),
                                  "activation": "linear"})
        elif isinstance(mod, nn.ReLU):
            doc["layers"][-1]["activation"] = "relu"
    return doc


# --- The policy as a document -------------------------------------------------------

def policy_doc(net, env, state, trainer):
    """What ``plan`` needs without the training: the start, the horizon,
    the moves, the state's kind and the network (``layers_doc``)."""
    return dict(layers_doc(net), format=FORMAT, version=VERSION, state=state,
                trainer=trainer, start=env.start.key(), horizon=env.horizon,
                moves=list(env.actions.names))
