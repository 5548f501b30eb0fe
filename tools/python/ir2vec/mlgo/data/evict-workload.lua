-- The lua workload of `python3 -m ir2vec.mlgo workloads`: a little of
-- everything an interpreter does, deterministic, printing a checksum.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local t, s = {}, 0
for i = 1, 60000 do t[i] = (i * 7919) % 100003 end
table.sort(t)
for i = 1, #t, 97 do s = s + t[i] end

local words = {}
for w in string.gmatch(string.rep("the quick brown fox jumps over the lazy dog ", 3000), "%a+") do
  words[w] = (words[w] or 0) + 1
end
local parts = {}
for k, v in pairs(words) do parts[#parts + 1] = k .. "=" .. v end
table.sort(parts)

local x = 0.0
for i = 1, 200000 do x = x + math.sin(i) * math.sqrt(i) end

local counters = {}
for i = 1, 2000 do counters[i] = (function() local c = i return function() c = c + 1 return c end end)() end
local acc = 0
for r = 1, 20 do for i = 1, #counters do acc = acc + counters[i]() end end

print(fib(24), s, table.concat(parts, ","), string.format("%.6f", x), acc)
