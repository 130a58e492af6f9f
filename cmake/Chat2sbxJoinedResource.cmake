# A Qt resource file joined at build time from source parts (cmake/JoinParts.cmake): the in-sandbox
# helper from its numbered parts, the tool card from its HTML shell and the style and script parts it
# includes. The joined file lands in <build dir>/joined/<QRC>/<FILE> and is compiled as the resource
# :<PREFIX>/<FILE> of a .qrc named <QRC> (so Q_INIT_RESOURCE(<QRC>) loads it); the generated rcc
# source is appended to <sources_var>. INCLUDES lists the files the parts include (the build joins
# again when one changes). The joined file's path is the global property CHAT2SBX_JOINED_<QRC>.
#   chat2sbx_joined_resource(<sources_var> QRC <name> PREFIX <prefix> FILE <file name>
#                            PARTS <part>... [INCLUDES <file>...])
set(CHAT2SBX_JOIN_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/JoinParts.cmake)

function(chat2sbx_joined_resource sources_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "QRC;PREFIX;FILE" "PARTS;INCLUDES")
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/joined/${arg_QRC})
  set(out ${dir}/${arg_FILE})
  list(TRANSFORM arg_PARTS PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/ REGEX "^[^/]")
  list(TRANSFORM arg_INCLUDES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/ REGEX "^[^/]")
  add_custom_command(OUTPUT ${out}
                     COMMAND ${CMAKE_COMMAND} -P ${CHAT2SBX_JOIN_SCRIPT} ${out} ${arg_PARTS}
                     DEPENDS ${CHAT2SBX_JOIN_SCRIPT} ${arg_PARTS} ${arg_INCLUDES}
                     COMMENT "Joining ${arg_FILE}"
                     VERBATIM)
  file(CONFIGURE OUTPUT ${dir}/${arg_QRC}.qrc CONTENT
"<!DOCTYPE RCC>
<RCC version=\"1.0\">
  <qresource prefix=\"${arg_PREFIX}\">
    <file>${arg_FILE}</file>
  </qresource>
</RCC>
")
  qt6_add_resources(generated ${dir}/${arg_QRC}.qrc)
  set_property(GLOBAL PROPERTY CHAT2SBX_JOINED_${arg_QRC} ${out})
  set(${sources_var} ${${sources_var}} ${generated} PARENT_SCOPE)
endfunction()
