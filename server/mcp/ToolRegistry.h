#pragma once

#include "mcp/Tool.h"

#include <QByteArray>
#include <QJsonArray>
#include <QList>

namespace chat2sbx {

// The fixed set of operations the MCP endpoint exposes. Tool families add theirs at start-up.
class ToolRegistry {
public:
    struct Entry {
        ToolDefinition definition;
        ToolHandler handler;
    };

    // Returns false (and leaves the registry unchanged) for a duplicate or malformed name.
    bool add(const ToolDefinition &definition, ToolHandler handler);
    const Entry *find(const QString &name) const;
    const QList<Entry> &entries() const { return m_entries; }

    // The tools/list array, annotations explicit.
    QJsonArray toJson() const;
    // The tools/list result object {"tools": [...]}, serialized once and kept until a tool is added.
    const QByteArray &listResultJson() const;

    static bool isValidToolName(const QString &name);

    // Off: no tool points at the tool card (config toolCards); the invocation texts stay.
    void setToolCardsEnabled(bool enabled);
    // Whether results of this tool are drawn by the tool card.
    bool hasCard(const ToolDefinition &definition) const
    {
        return m_toolCards && definition.presentation.cardView != ToolCardView::None;
    }

private:
    QList<Entry> m_entries;
    bool m_toolCards = true;
    mutable QByteArray m_listResultJson;
};

} // namespace chat2sbx
