# The layering of docs/ARCHITECTURE.md, checked on the sources (run by ctest as `layering`):
#  - inside server/, an include never runs up the order
#      core < state < config < {workspace, tunnel, http} < mcp < sandbox rooms < tools < runtime
#    and inside sandbox/ the rooms have an order of their own
#      sbx < channel < {bash, ports, setup} < lifecycle < {present, changes, network};
#    folders (and rooms) on the same floor do not include each other;
#  - sandbox/ includes neither mcp/ (the protocol) nor tunnel/, and every file of sandbox/ is in a room;
#  - mcp/ (the protocol) includes no storage of state/: records yes, repositories and the database no;
#  - nothing in server/ includes a QtWidgets header;
#  - a QProcess is created only in SbxDriver, SandboxChannel, TunnelSupervisor, TunnelDoctor and HostGit;
#  - no file in server/ is longer than 600 lines (one clear purpose per file).
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
# SbxDriver: every short `sbx` call; SandboxChannel: the long-lived `sbx exec -i` control channel;
# TunnelSupervisor and TunnelDoctor (`tunnel-client run` / `doctor`, both built by TunnelClientLaunch);
# HostGit: `git` on the host for export_changes and `sandbox fetch`.
set(process_owners "server/sandbox/sbx/SbxDriver.cpp;server/sandbox/channel/SandboxChannel.cpp;server/tunnel/TunnelSupervisor.cpp;server/tunnel/TunnelDoctor.cpp;server/workspace/HostGit.cpp")

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

file(GLOB_RECURSE sources RELATIVE ${ROOT} ${ROOT}/server/*.h ${ROOT}/server/*.cpp)
set(violations "")
foreach(rel ${sources})
  string(REGEX REPLACE "^server/" "" inner "${rel}")
  layer_of("${inner}" layer)
  if(inner MATCHES "^sandbox/[^/]+$" OR (layer MATCHES "^sandbox/" AND NOT DEFINED rank_${layer}))
    list(APPEND violations "${rel}: sandbox/ files live in one of its rooms (sbx, channel, bash, ports, setup, lifecycle, present, changes, network)")
  endif()
  file(READ ${ROOT}/${rel} content)
  string(REGEX MATCHALL "\n" newlines "${content}")
  list(LENGTH newlines line_count)
  if(line_count GREATER 600)
    list(APPEND violations "${rel}: ${line_count} lines, more than 600: split it by purpose")
  endif()
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
    if(layer STREQUAL "mcp" AND line MATCHES "#[ \t]*include[ \t]*\"state/([A-Za-z_]*Repository|Database|SqlStatement|StatementCache)\\.h\"")
      list(APPEND violations "${rel}: mcp/ may not include state/ storage (${line})")
    endif()
    if(line MATCHES "#[ \t]*include[ \t]*<(${widget_headers})[/>]")
      list(APPEND violations "${rel}: server/ includes a widgets header (${line})")
    endif()
  endforeach()
  list(FIND process_owners "${rel}" owner)
  if(owner EQUAL -1)
    file(STRINGS ${ROOT}/${rel} creations REGEX "new[ \t]+QProcess[ \t]*[({;]|make_unique<QProcess>|make_shared<QProcess>|^[ \t]*QProcess[ \t]+[A-Za-z_]+[ \t]*[;({]")
    foreach(line ${creations})
      string(STRIP "${line}" line)
      list(APPEND violations "${rel}: creates a QProcess outside SbxDriver, SandboxChannel, TunnelSupervisor, TunnelDoctor and HostGit (${line})")
    endforeach()
  endif()
endforeach()

list(LENGTH sources count)
if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "layering: ${count} files checked, violations:\n  ${text}")
endif()
message(STATUS "layering: ${count} files checked, no include runs up the order")
