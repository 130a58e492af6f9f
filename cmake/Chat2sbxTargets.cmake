# Compiler warnings for the project's own targets (not for Qt's generated moc/rcc code).
function(chat2sbx_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Woverloaded-virtual)
  if(CHAT2SBX_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  # Qt 6.4 is the oldest Qt supported: warn only about what was deprecated by then (newer Qt
  # deprecates APIs whose replacements 6.4 lacks; Qt 6.4 itself ignores this macro).
  target_compile_definitions(${target} PRIVATE QT_NO_FOREACH
                                               QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
                                               QT_WARN_DEPRECATED_UP_TO=0x060400)
endfunction()

# Precompiled headers: parsing Qt's headers is about two thirds of the compile time of a chat2sbx
# file, so each library compiles the headers most of its files include once. Test executables (one
# file each) share the test support library's, which also holds <QtTest>.
option(CHAT2SBX_PCH "Precompile the Qt headers most files include (faster builds)" ON)
set(CHAT2SBX_PCH_HEADERS
  <QObject> <QString> <QStringList> <QByteArray> <QList> <QHash> <QSet> <QPointer> <QTimer>
  <QJsonArray> <QJsonDocument> <QJsonObject> <QJsonValue> <QFile> <QFileInfo> <QDir>
  <QLoggingCategory> <QRegularExpression> <QElapsedTimer> <QDateTime> <QVariant>
  <QProcess> <QProcessEnvironment> <QCoreApplication>
  <algorithm> <functional> <memory> <optional>)
function(chat2sbx_precompile target)
  if(CHAT2SBX_PCH)
    target_precompile_headers(${target} PRIVATE ${CHAT2SBX_PCH_HEADERS} ${ARGN})
  endif()
endfunction()
# A target compiled with exactly the flags of `from` (same definitions, same options) reuses its
# precompiled headers instead of building its own.
function(chat2sbx_reuse_precompiled target from)
  if(CHAT2SBX_PCH)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()

# Unity build: a library's files are compiled in batches of 16, one translation unit each, so the
# precompiled headers are loaded once per batch instead of once per file (loading them was most of
# a small file's compile time). Files listed after the target stay alone: their file-local names
# (in anonymous namespaces) repeat names of other files, which a batch would see as redefinitions.
# A new file that collides fails the build with "redefinition of ..."; rename the name or list the file.
option(CHAT2SBX_UNITY "Compile each library's files in batches (faster clean builds)" ON)
# 0: one batch per library. Which files share a batch shifts as files are added, so a clash of
# file-local names shows up in some later, unrelated change; in one batch every clash shows at once
# (the release preset is configured so: CI's release and Debian 13 builds).
set(CHAT2SBX_UNITY_BATCH_SIZE 16 CACHE STRING "Files per unity batch (0: one batch per library)")
function(chat2sbx_unity target)
  if(CHAT2SBX_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${CHAT2SBX_UNITY_BATCH_SIZE})
    if(ARGN)
      set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endif()
endfunction()
