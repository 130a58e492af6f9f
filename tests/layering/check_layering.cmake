# The layering of docs/ARCHITECTURE.md, checked on the sources (run by ctest as `layering`):
#  - inside server/, an include never runs up the order
#      core < state < config < {workspace, mcp, tunnel} < sandbox < tools < runtime
#    (folders on the same floor do not include each other either);
#  - mcp/ (the protocol) includes no storage of state/: records yes, repositories and the database no;
#  - nothing in server/ includes a QtWidgets header;
#  - a QProcess is created only in SbxDriver, SandboxChannel, TunnelSupervisor, TunnelDoctor and HostGit.
# Usage: cmake -DROOT=<tree holding server/> -P check_layering.cmake
if(NOT ROOT)
  message(FATAL_ERROR "pass -DROOT=<source tree>")
endif()

set(rank_core 0)
set(rank_state 1)
set(rank_config 2)
set(rank_workspace 3)
set(rank_mcp 3)
set(rank_tunnel 3)
set(rank_sandbox 4)
set(rank_tools 5)
set(rank_runtime 6)
set(widget_headers "QtWidgets|QWidget|QApplication|QMainWindow|QDialog|QMenu|QAction|QSystemTrayIcon|QLabel|QPushButton|QMessageBox|QLayout|QVBoxLayout|QHBoxLayout|QScrollArea|QStyle")
# SbxDriver: every short `sbx` call; SandboxChannel: the long-lived `sbx exec -i` control channel;
# TunnelSupervisor and TunnelDoctor (`tunnel-client run` / `doctor`, both built by TunnelClientLaunch);
# HostGit: `git` on the host for export_changes and `sandbox fetch`.
set(process_owners "server/sandbox/SbxDriver.cpp;server/sandbox/SandboxChannel.cpp;server/tunnel/TunnelSupervisor.cpp;server/tunnel/TunnelDoctor.cpp;server/workspace/HostGit.cpp")

file(GLOB_RECURSE sources RELATIVE ${ROOT} ${ROOT}/server/*.h ${ROOT}/server/*.cpp)
set(violations "")
foreach(rel ${sources})
  string(REGEX MATCH "^server/([A-Za-z_]+)/" _ "${rel}")
  set(layer "${CMAKE_MATCH_1}")
  file(STRINGS ${ROOT}/${rel} includes REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${includes})
    if(line MATCHES "#[ \t]*include[ \t]*\"([A-Za-z_]+)/" AND DEFINED rank_${layer})
      set(target "${CMAKE_MATCH_1}")
      if(DEFINED rank_${target} AND NOT target STREQUAL layer
         AND NOT rank_${target} LESS rank_${layer})
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
