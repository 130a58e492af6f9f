// Command-line flags of `tunnel-client run`, parsed with the rules of spf13/pflag (which the
// real client uses): --name=value, --name value, bare --name for booleans, "--" ends flags.
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

namespace faketunnel {

class FlagSet
{
public:
    // Returns false and sets *error ("unknown flag: --x", ...) on a malformed command line.
    bool parse(const QStringList &args, QString *error);

    bool isSet(const QString &name) const { return m_values.contains(name); }
    // Last occurrence wins for scalar flags (pflag behaviour).
    QString value(const QString &name) const;
    // Every occurrence, in order, for repeatable flags.
    QStringList values(const QString &name) const { return m_values.value(name); }
    bool helpRequested() const { return m_help; }
    QStringList positional() const { return m_positional; }
    // Flags that the real client knows but the fake only accepts and ignores.
    QStringList ignoredFlagsUsed() const;

    static QString usage();

private:
    QHash<QString, QStringList> m_values;
    QStringList m_positional;
    bool m_help = false;
};

} // namespace faketunnel
