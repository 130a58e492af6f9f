# Joins source parts into one file, byte for byte (script mode, run by the build):
#   cmake -P JoinParts.cmake <output> <part>...
# The parts are concatenated in the order given. A line of a part that is only
# `/* include: <file> */` (a comment in CSS and JavaScript alike) is replaced by that file of the
# part's folder, so an HTML shell can place its style and script parts.
if(CMAKE_ARGC LESS 5)
  message(FATAL_ERROR "usage: cmake -P JoinParts.cmake <output> <part>...")
endif()
math(EXPR last "${CMAKE_ARGC} - 1")
set(output "${CMAKE_ARGV3}")
set(joined "")
foreach(i RANGE 4 ${last})
  set(part "${CMAKE_ARGV${i}}")
  file(READ "${part}" text)
  get_filename_component(folder "${part}" DIRECTORY)
  string(REGEX MATCHALL "(^|\n)[ \t]*/\\* include: [A-Za-z0-9._-]+ \\*/\n" markers "${text}")
  foreach(marker IN LISTS markers)
    string(REGEX REPLACE "^\n?[ \t]*/\\* include: ([A-Za-z0-9._-]+) \\*/\n$" "\\1" name "${marker}")
    if(NOT EXISTS "${folder}/${name}")
      message(FATAL_ERROR "${part} includes ${name}, which is not in ${folder}")
    endif()
    file(READ "${folder}/${name}" included)
    string(REGEX MATCH "^\n" lead "${marker}")
    string(REPLACE "${marker}" "${lead}${included}" text "${text}")
  endforeach()
  string(APPEND joined "${text}")
endforeach()
file(WRITE "${output}.tmp" "${joined}")
file(RENAME "${output}.tmp" "${output}")
