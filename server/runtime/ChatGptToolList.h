#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

namespace chat2sbx {

class Clock;
class SettingsRepository;

// Whether ChatGPT still has the tool list chat2sbx serves now. ChatGPT lists a connector's tools only
// when the connector is created or refreshed, so after an upgrade or a configuration change that
// alters the list (names, schemas, descriptions, _meta), its model keeps calling the old tools until
// the user refreshes the app. The fingerprint of the list last served to a ChatGPT client
// (clientInfo "openai-mcp") is kept in the settings table, across restarts.
class ChatGptToolList : public QObject {
    Q_OBJECT
public:
    enum class Freshness { NeverFetched, Current, Changed };

    ChatGptToolList(SettingsRepository &settings, const Clock &clock, QObject *parent = nullptr);

    // The list served now (the tools/list result); called at start and whenever it changes.
    void setCurrentList(const QByteArray &listResultJson);
    // A ChatGPT client was just given the current list.
    void servedToChatGpt();

    Freshness freshness() const;
    qint64 fetchedAtMs() const { return m_fetchedAt; }   // when ChatGPT first fetched the list it has; 0: never

    static QString fingerprintOf(const QByteArray &listResultJson);
    // The one step to take when the list changed.
    static QString refreshAdvice();

private:
    SettingsRepository &m_settings;
    const Clock &m_clock;
    QString m_current;
    QString m_fetched;
    qint64 m_fetchedAt = 0;
};

} // namespace chat2sbx
