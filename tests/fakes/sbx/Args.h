// Flag parsing for the fake's subcommands, with the rules of a cobra/pflag CLI: flags may appear
// anywhere among the positionals, "--flag value" and "--flag=value", "--" ends the flags.
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

namespace fakesbx {

class ParsedArgs
{
public:
    bool ok = true;
    QString error;            // "unknown flag: --x", ...
    QStringList positional;

    bool has(const QString &flag) const { return m_values.contains(flag); }
    int count(const QString &flag) const { return m_values.value(flag).size(); }
    QString value(const QString &flag) const;  // last occurrence

private:
    friend ParsedArgs parseArgs(const QStringList &, const QStringList &, const QStringList &);
    QHash<QString, QStringList> m_values;
};

// booleans / withValue hold full flag names, e.g. "--quiet", "--name".
ParsedArgs parseArgs(const QStringList &args, const QStringList &booleans,
                     const QStringList &withValue);

} // namespace fakesbx
