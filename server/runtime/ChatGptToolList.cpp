#include "runtime/ChatGptToolList.h"

#include "core/Clock.h"
#include "state/SettingsRepository.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcChatGptTools, "chat2sbx.chatgpt")

namespace {

const QString kSettingKey = QStringLiteral("chatgpt.tool_list");

} // namespace

ChatGptToolList::ChatGptToolList(SettingsRepository &settings, const Clock &clock, QObject *parent)
    : QObject(parent), m_settings(settings), m_clock(clock)
{
    const QJsonObject stored = QJsonDocument::fromJson(m_settings.value(kSettingKey).value_or(QString()).toUtf8()).object();
    m_fetched = stored.value(QStringLiteral("fingerprint")).toString();
    m_fetchedAt = stored.value(QStringLiteral("fetched_at")).toInteger();
}

QString ChatGptToolList::fingerprintOf(const QByteArray &listResultJson)
{
    return QString::fromLatin1(QCryptographicHash::hash(listResultJson, QCryptographicHash::Sha256).toHex());
}

QString ChatGptToolList::refreshAdvice()
{
    return QStringLiteral("the tool list changed since ChatGPT last fetched it: in ChatGPT, open Settings > Apps & Connectors > "
                          "chat2sbx and click Refresh");
}

void ChatGptToolList::setCurrentList(const QByteArray &listResultJson)
{
    m_current = fingerprintOf(listResultJson);
}

void ChatGptToolList::servedToChatGpt()
{
    if (m_current.isEmpty() || m_current == m_fetched)
        return;   // one write per new list, not one per tools/list
    const qint64 now = m_clock.nowMs();
    const QJsonObject value{{QStringLiteral("fingerprint"), m_current}, {QStringLiteral("fetched_at"), now}};
    QString error;
    if (!m_settings.setValue(kSettingKey, QString::fromUtf8(QJsonDocument(value).toJson(QJsonDocument::Compact)), now, error)) {
        qCWarning(lcChatGptTools).noquote() << "cannot record the tool list ChatGPT fetched:" << error;
        return;
    }
    m_fetched = m_current;
    m_fetchedAt = now;
    qCInfo(lcChatGptTools).noquote() << "ChatGPT fetched the current tool list" << m_current.left(12);
}

ChatGptToolList::Freshness ChatGptToolList::freshness() const
{
    if (m_fetched.isEmpty())
        return Freshness::NeverFetched;
    return m_fetched == m_current ? Freshness::Current : Freshness::Changed;
}

} // namespace chat2sbx
