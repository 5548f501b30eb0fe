//===- BoostCommandLine.h - Boost.Program_options, one way ------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The command-line syntax of every irtk tool that parses with
/// Boost.Program_options: Unix style, long options with one dash too
/// (-vocab=v.json, as LLVM's tools accept), and no abbreviations: a prefix
/// of an option name is not that option (Boost guesses by default; LLVM's
/// cl::opt never does). Boost reports errors by throwing: include this only
/// in files built with exceptions, and catch them there.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_COMMON_BOOSTCOMMANDLINE_H
#define IRTK_TOOLS_COMMON_BOOSTCOMMANDLINE_H

#include <boost/program_options.hpp>

#include <string>
#include <vector>

namespace irtk::tools {

/// The style flags above.
inline int commandLineStyle() {
  namespace style = boost::program_options::command_line_style;
  return (style::unix_style | style::allow_long_disguise) &
         ~style::allow_guessing;
}

/// Parses \p Args (the arguments after the subcommand) with \p Desc and
/// \p Positional in that style. Throws what Boost throws.
inline boost::program_options::parsed_options parseArguments(
    const std::vector<std::string> &Args,
    const boost::program_options::options_description &Desc,
    const boost::program_options::positional_options_description &Positional) {
  return boost::program_options::command_line_parser(Args)
      .options(Desc)
      .positional(Positional)
      .style(commandLineStyle())
      .run();
}

/// Stores a subcommand's arguments (\p Argv from index 2) into the
/// variables \p Desc names. Returns Boost's error message, or "" when the
/// arguments were stored; \p Help is set when --help was among them (the
/// variables are then left unset). With \p RefuseEmptyValues, a string
/// option given an empty value (--sigma '') is an error, for tools whose
/// empty string means "not given".
inline std::string storeSubcommandArguments(
    int Argc, char **Argv,
    const boost::program_options::options_description &Desc,
    const boost::program_options::positional_options_description &Positional,
    bool &Help, bool RefuseEmptyValues = false) {
  namespace po = boost::program_options;
  try {
    po::variables_map VM;
    std::vector<std::string> Args(Argv + 2, Argv + Argc);
    po::store(parseArguments(Args, Desc, Positional), VM);
    Help = VM.count("help") > 0;
    // --help takes no value: Boost stores it as an empty string.
    if (RefuseEmptyValues && !Help)
      for (const auto &[Name, Value] : VM) {
        // An empty value would read as the option's default.
        const auto *Text = boost::any_cast<std::string>(&Value.value());
        if (Text && Text->empty())
          return "invalid --" + Name + " ''; expected a value";
      }
    if (!Help)
      po::notify(VM);
  } catch (const std::exception &E) {
    return E.what();
  }
  return "";
}

} // namespace irtk::tools

#endif // IRTK_TOOLS_COMMON_BOOSTCOMMANDLINE_H
