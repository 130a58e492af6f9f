# Compiler warnings for the project's own targets (not for Qt's generated moc/rcc code).
function(chat2sbx_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Woverloaded-virtual)
  if(CHAT2SBX_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_compile_definitions(${target} PRIVATE QT_NO_FOREACH
                                               QT_NO_NARROWING_CONVERSIONS_IN_CONNECT)
endfunction()
