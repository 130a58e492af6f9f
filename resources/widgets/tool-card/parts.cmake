# The tool card's parts (docs/TOOL_CARDS.md): the page shell and, in the order the shell includes
# them, its style and scripts. server/ and tests/fuzz join them into the served page.
set(CHAT2SBX_TOOL_CARD_SHELL ${CMAKE_CURRENT_LIST_DIR}/tool-card.html)
set(CHAT2SBX_TOOL_CARD_PARTS
  ${CMAKE_CURRENT_LIST_DIR}/card.css
  ${CMAKE_CURRENT_LIST_DIR}/parsers.js
  ${CMAKE_CURRENT_LIST_DIR}/dom.js
  ${CMAKE_CURRENT_LIST_DIR}/views-text.js
  ${CMAKE_CURRENT_LIST_DIR}/views-diff.js
  ${CMAKE_CURRENT_LIST_DIR}/views-sandbox.js
  ${CMAKE_CURRENT_LIST_DIR}/views-file.js
  ${CMAKE_CURRENT_LIST_DIR}/views-checkpoint.js
  ${CMAKE_CURRENT_LIST_DIR}/render.js
  ${CMAKE_CURRENT_LIST_DIR}/host.js)
