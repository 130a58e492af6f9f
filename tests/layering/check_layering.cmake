# The layering of docs/ARCHITECTURE.md, checked on the sources (run by ctest as `layering`):
#  - inside server/, an include never runs up the order
#      core < state < config < {workspace, tunnel, http} < mcp < sandbox rooms < tools < runtime
#    and inside sandbox/ the rooms have an order of their own
#      sbx < channel < {bash, ports, setup} < lifecycle < {present, changes, network};
#    folders (and rooms) on the same floor do not include each other;
#  - sandbox/ includes neither mcp/ (the protocol) nor tunnel/, and every file of sandbox/ is in a room;
#  - mcp/ (the protocol) includes no storage of state/: records yes, repositories and the database no;
#  - nothing in server/ includes a QtWidgets header, nor a header of ui/ or app/;
#  - ui/ lives in rooms with an order of their own
#      models < {bindings, widgets} < {firstrun, notifications} < popup < tray
#    (a room includes its own files and lower rooms; rooms on one floor not each other); only
#    ui/bindings/ (the models over the services) includes server/, never tools/; every other room
#    reads ui/models/; no room includes bindings/ (app/ wires them); ui/ includes nothing of app/;
#  - app/ (commands, main) includes server/ and ui/, never server/tools/ (commands use services);
#  - a QProcess is created (in server/, ui/ or app/) only by core/ChildProcess (every short child),
#    SandboxChannel (the long-lived `sbx exec -i`) and TunnelClientProcess (the supervised tunnel-client);
#  - no file is longer than 600 lines (one clear purpose per file; 300 in server/tunnel/): the C++ of server/, ui/ and app/,
#    and the scripts and pages (.sh, .html, .js, .mjs, .css) under server/ and resources/;
#  - none of them names an issue number (they belong in commit trailers);
#  - shell run in a VM lives in linted files (a room's vm/*.sh, named by inVmScript()): no `sh -c`
#    or `bash -c` in C++ takes a script written inline, and no raw-string script is embedded;
#  - every MCP tool is defined in a file of its own, server/tools/<Name>Tool.cpp, one tool each;
#  - server/ reads the time only through core/Clock (tests move it): no QDateTime::current*,
#    std::chrono clocks' now() or time().
# Usage: cmake -DROOT=<tree holding server/> -P check_layering.cmake
cmake_policy(SET CMP0057 NEW)
if(NOT ROOT)
  message(FATAL_ERROR "pass -DROOT=<source tree>")
endif()

set(rank_core 0)
set(rank_state 10)
set(rank_config 20)
set(rank_workspace 30)
set(rank_tunnel 30)
set(rank_http 30)
set(rank_mcp 40)
set(rank_sandbox/sbx 41)
set(rank_sandbox/channel 42)
set(rank_sandbox/bash 43)
set(rank_sandbox/ports 43)
set(rank_sandbox/setup 43)
set(rank_sandbox/lifecycle 44)
set(rank_sandbox/present 45)
set(rank_sandbox/changes 45)
set(rank_sandbox/network 45)
set(rank_tools 50)
set(rank_runtime 60)
# Lower in rank, still out of reach: the protocol and the tunnel are not the sandbox's business.
set(forbidden_sandbox "mcp;tunnel")
set(widget_headers "QtWidgets|QWidget|QApplication|QMainWindow|QDialog|QMenu|QAction|QSystemTrayIcon|QLabel|QPushButton|QMessageBox|QLayout|QVBoxLayout|QHBoxLayout|QScrollArea|QStyle")
# core/ChildProcess: every short child (`sbx` through SbxDriver, host `git`, `tunnel-client doctor`);
# SandboxChannel: the long-lived `sbx exec -i` control channel (SbxDriver starts it);
# TunnelClientProcess: `tunnel-client run`, which TunnelSupervisor keeps alive while the server runs.
set(process_owners "server/core/ChildProcess.cpp;server/sandbox/channel/SandboxChannel.cpp;server/tunnel/TunnelClientProcess.cpp")
set(process_pattern "new[ \t]+QProcess[ \t]*[({;]|make_unique<QProcess>|make_shared<QProcess>|^[ \t]*QProcess[ \t]+[A-Za-z_]+[ \t]*[;({]")
set(max_lines 600)
# tunnel/: the process, the health probe and the state machine apart, none grown back into one.
set(max_lines_tunnel 300)

# The layer of a path below server/ ("sandbox/bash/X.h" -> "sandbox/bash", "mcp/X.h" -> "mcp"),
# or "" when it names none.
function(layer_of path out)
  if(path MATCHES "^sandbox/([A-Za-z_]+)/")
    set(${out} "sandbox/${CMAKE_MATCH_1}" PARENT_SCOPE)
  elseif(path MATCHES "^([A-Za-z_]+)/")
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# Lines of `file` above the limit, as a violation.
function(check_length rel)
  file(READ ${ROOT}/${rel} content)
  string(REGEX MATCHALL "\n" newlines "${content}")
  list(LENGTH newlines line_count)
  set(limit ${max_lines})
  if(rel MATCHES "^server/tunnel/")
    set(limit ${max_lines_tunnel})
  endif()
  if(line_count GREATER limit)
    list(APPEND violations "${rel}: ${line_count} lines, more than ${limit}: split it by purpose")
    set(violations "${violations}" PARENT_SCOPE)
  endif()
endfunction()

# Issue numbers belong in commit trailers (`Refs: #N`), not in product code: "issue 45",
# "(#264)", "sbx-releases#542" name what changes, not what the code does.
function(check_issue_numbers rel)
  file(STRINGS ${ROOT}/${rel} named REGEX "[Ii]ssue #?[0-9]+|[A-Za-z]#[0-9]+|\\(#[0-9]+")
  foreach(line ${named})
    string(STRIP "${line}" line)
    list(APPEND violations "${rel}: names an issue number (issue numbers belong in commit trailers): ${line}")
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

# Shell run in a VM is linted (lint.shellcheck) only when it lives in a .sh file: C++ names it with
# inVmScript() after `sh -c` / `bash -c`, and embeds no raw-string script.
set(shell_pattern "QStringLiteral\\(\"(ba)?sh\"\\),[ \t]*QStringLiteral\\(\"-l?c\"\\)|R\"(SH|BASH|SCRIPT)\\(")
function(check_inline_shell rel)
  file(STRINGS ${ROOT}/${rel} shells REGEX "${shell_pattern}")
  foreach(line ${shells})
    if(NOT line MATCHES "inVmScript\\(" OR line MATCHES "R\"(SH|BASH|SCRIPT)\\(")
      string(STRIP "${line}" line)
      list(APPEND violations "${rel}: runs shell written inline: in-VM shell lives in a linted vm/*.sh file named by inVmScript() (${line})")
    endif()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

# One MCP tool per server/tools/<Name>Tool.cpp, and none defined elsewhere.
function(check_tool_definitions rel)
  if(NOT rel MATCHES "^server/tools/.*\\.cpp$")
    return()
  endif()
  file(STRINGS ${ROOT}/${rel} names REGEX "\\.name[ \t]*=[ \t]*QStringLiteral\\(\"")
  list(LENGTH names count)
  if(rel MATCHES "Tool\\.cpp$" AND count GREATER 1)
    list(APPEND violations "${rel}: defines ${count} tools: one tool per <Name>Tool.cpp")
  elseif(NOT rel MATCHES "Tool\\.cpp$" AND count GREATER 0)
    list(APPEND violations "${rel}: defines a tool outside a <Name>Tool.cpp: give it a file of its own")
  endif()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

# The time in server/ comes from core/Clock (a test's clock moves; the system's does not).
set(clock_pattern "QDateTime::current|QDate::currentDate|QTime::currentTime|_clock::now|std::time[ \t]*\\(|[^A-Za-z_:.>]time[ \t]*\\((nullptr|NULL|0)\\)|gettimeofday|clock_gettime")
function(check_clock rel)
  if(rel MATCHES "^server/core/Clock\\.")
    return()
  endif()
  file(STRINGS ${ROOT}/${rel} reads REGEX "${clock_pattern}")
  foreach(line ${reads})
    string(STRIP "${line}" line)
    list(APPEND violations "${rel}: reads the time outside core/Clock: take a Clock (${line})")
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

function(check_processes rel)
  list(FIND process_owners "${rel}" owner)
  if(owner EQUAL -1)
    file(STRINGS ${ROOT}/${rel} creations REGEX "${process_pattern}")
    foreach(line ${creations})
      string(STRIP "${line}" line)
      list(APPEND violations "${rel}: creates a QProcess outside core/ChildProcess, SandboxChannel and TunnelClientProcess (${line})")
    endforeach()
    set(violations "${violations}" PARENT_SCOPE)
  endif()
endfunction()

# The folder a quoted include without a folder names, seen from `dir` (server, ui or app): its own
# folder first, then ui/, then app/; "" for none.
function(local_header_folder dir name out)
  if(EXISTS ${ROOT}/${dir}/${name})
    set(${out} "${dir}" PARENT_SCOPE)
  elseif(EXISTS ${ROOT}/ui/${name})
    set(${out} "ui" PARENT_SCOPE)
  elseif(EXISTS ${ROOT}/app/${name})
    set(${out} "app" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

set(violations "")
file(GLOB_RECURSE sources RELATIVE ${ROOT} ${ROOT}/server/*.h ${ROOT}/server/*.cpp)
foreach(rel ${sources})
  string(REGEX REPLACE "^server/" "" inner "${rel}")
  layer_of("${inner}" layer)
  if(inner MATCHES "^sandbox/[^/]+$" OR (layer MATCHES "^sandbox/" AND NOT DEFINED rank_${layer}))
    list(APPEND violations "${rel}: sandbox/ files live in one of its rooms (sbx, channel, bash, ports, setup, lifecycle, present, changes, network)")
  endif()
  check_length("${rel}")
  check_issue_numbers("${rel}")
  check_inline_shell("${rel}")
  check_tool_definitions("${rel}")
  check_clock("${rel}")
  file(STRINGS ${ROOT}/${rel} includes REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${includes})
    if(line MATCHES "#[ \t]*include[ \t]*\"([A-Za-z_/]+)\\.h\"" AND DEFINED rank_${layer})
      layer_of("${CMAKE_MATCH_1}.h" target)
      if(target STREQUAL "sandbox")
        list(APPEND violations "${rel}: includes a sandbox/ header outside the rooms (${line})")
      elseif(DEFINED rank_${target} AND NOT target STREQUAL layer
             AND NOT rank_${target} LESS rank_${layer})
        list(APPEND violations "${rel}: ${layer}/ may not include ${target}/ (${line})")
      elseif(layer MATCHES "^sandbox/" AND target IN_LIST forbidden_sandbox)
        list(APPEND violations "${rel}: ${layer}/ may not include ${target}/ (${line})")
      endif()
    endif()
    if(line MATCHES "#[ \t]*include[ \t]*\"(ui|app)/")
      list(APPEND violations "${rel}: server/ may not include ${CMAKE_MATCH_1}/ (${line})")
    elseif(line MATCHES "#[ \t]*include[ \t]*\"(models|bindings|widgets|firstrun|notifications|popup|tray)/")
      list(APPEND violations "${rel}: server/ may not include ui/ (${line})")
    elseif(line MATCHES "#[ \t]*include[ \t]*\"([A-Za-z_]+\\.h)\"")
      local_header_folder(server "${CMAKE_MATCH_1}" folder)
      if(folder STREQUAL "ui" OR folder STREQUAL "app")
        list(APPEND violations "${rel}: server/ may not include ${folder}/ (${line})")
      endif()
    endif()
    if(layer STREQUAL "mcp" AND line MATCHES "#[ \t]*include[ \t]*\"state/([A-Za-z_]*Repository|Database|SqlStatement|StatementCache)\\.h\"")
      list(APPEND violations "${rel}: mcp/ may not include state/ storage (${line})")
    endif()
    if(line MATCHES "#[ \t]*include[ \t]*<(${widget_headers})[/>]")
      list(APPEND violations "${rel}: server/ includes a widgets header (${line})")
    endif()
  endforeach()
  check_processes("${rel}")
endforeach()

# ui/'s rooms: the order they include each other in.
set(ui_rank_models 0)
set(ui_rank_bindings 10)
set(ui_rank_widgets 10)
set(ui_rank_firstrun 20)
set(ui_rank_notifications 20)
set(ui_rank_popup 30)
set(ui_rank_tray 40)

# ui/ and app/ over server/: which of server/'s headers they may name.
file(GLOB_RECURSE front_ends RELATIVE ${ROOT} ${ROOT}/ui/*.h ${ROOT}/ui/*.cpp ${ROOT}/app/*.h ${ROOT}/app/*.cpp)
foreach(rel ${front_ends})
  string(REGEX MATCH "^[a-z]+" dir "${rel}")
  check_length("${rel}")
  check_issue_numbers("${rel}")
  check_processes("${rel}")
  check_inline_shell("${rel}")
  set(room "")
  if(dir STREQUAL "ui")
    if(rel MATCHES "^ui/([a-z]+)/[^/]+$")
      set(room "${CMAKE_MATCH_1}")
    endif()
    if(NOT DEFINED ui_rank_${room})
      set(room "")
      list(APPEND violations "${rel}: ui/ files live in one of its rooms (models, bindings, widgets, firstrun, notifications, popup, tray)")
    endif()
  endif()
  file(STRINGS ${ROOT}/${rel} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${includes})
    if(NOT line MATCHES "#[ \t]*include[ \t]*\"([A-Za-z_/]+\\.h)\"")
      continue()
    endif()
    set(header "${CMAKE_MATCH_1}")
    layer_of("${header}" target)
    if(DEFINED rank_${target} OR target STREQUAL "sandbox")
      if(target STREQUAL "tools")
        list(APPEND violations "${rel}: ${dir}/ may not include tools/, the MCP tools: use the services (${line})")
      elseif(dir STREQUAL "ui" AND NOT room STREQUAL "bindings")
        list(APPEND violations "${rel}: ui/ includes server/ only in ui/bindings/, widgets read ui/models/ (${line})")
      endif()
    elseif(dir STREQUAL "ui" AND header MATCHES "^(models|bindings|widgets|firstrun|notifications|popup|tray)/"
           AND NOT room STREQUAL "")
      set(target_room "${CMAKE_MATCH_1}")
      if(target_room STREQUAL "bindings" AND NOT room STREQUAL "bindings")
        list(APPEND violations "${rel}: ui/${room}/ may not include ui/bindings/: app/ wires the bindings to the widgets (${line})")
      elseif(NOT target_room STREQUAL room AND NOT ui_rank_${target_room} LESS ui_rank_${room})
        list(APPEND violations "${rel}: ui/${room}/ may not include ui/${target_room}/ (${line})")
      endif()
    elseif(dir STREQUAL "ui" AND header MATCHES "^app/")
      list(APPEND violations "${rel}: ui/ may not include app/ (${line})")
    elseif(dir STREQUAL "ui" AND target STREQUAL "")
      local_header_folder(ui "${header}" folder)
      if(folder STREQUAL "app")
        list(APPEND violations "${rel}: ui/ may not include app/ (${line})")
      endif()
    endif()
  endforeach()
endforeach()

# Scripts and pages count too: the in-VM helper, the tool card.
file(GLOB_RECURSE scripts RELATIVE ${ROOT}
     ${ROOT}/server/*.sh ${ROOT}/server/*.html ${ROOT}/server/*.js ${ROOT}/server/*.mjs ${ROOT}/server/*.css
     ${ROOT}/resources/*.sh ${ROOT}/resources/*.html ${ROOT}/resources/*.js ${ROOT}/resources/*.mjs ${ROOT}/resources/*.css)
foreach(rel ${scripts})
  check_length("${rel}")
  check_issue_numbers("${rel}")
endforeach()

list(LENGTH sources server_count)
list(LENGTH front_ends front_count)
list(LENGTH scripts script_count)
math(EXPR count "${server_count} + ${front_count} + ${script_count}")
if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "layering: ${count} files checked, violations:\n  ${text}")
endif()
message(STATUS "layering: ${count} files checked, no include runs up the order")
