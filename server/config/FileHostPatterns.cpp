#include "config/FileHostPatterns.h"

#include <QRegularExpression>

namespace chat2sbx {
namespace {

struct Parsed {
    QStringList labels;   // the host part, split on '.'
    int port = 443;
    QString problem;
};

bool validLabel(const QString &label)
{
    static const QRegularExpression re(QStringLiteral("^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$"));
    return re.match(label).hasMatch();
}

Parsed parse(const QString &pattern)
{
    Parsed p;
    QString h = pattern.trimmed().toLower();
    const qsizetype colon = h.lastIndexOf(QLatin1Char(':'));
    if (colon >= 0) {
        bool ok = false;
        p.port = h.mid(colon + 1).toInt(&ok);
        if (!ok || p.port < 1 || p.port > 65535) {
            p.problem = QStringLiteral("the port is not a number from 1 to 65535");
            return p;
        }
        h.truncate(colon);
    }
    if (h.endsWith(QLatin1Char('.')))
        h.chop(1);
    if (h.isEmpty()) {
        p.problem = QStringLiteral("no host");
        return p;
    }
    p.labels = h.split(QLatin1Char('.'));
    const qsizetype stars = h.count(QLatin1Char('*'));
    if (stars > 1 || (stars == 1 && !p.labels.first().contains(QLatin1Char('*')))) {
        p.problem = QStringLiteral("a '*' may stand only once, in the first label");
        return p;
    }
    if (stars == 1 && p.labels.size() < 3) {
        p.problem = QStringLiteral("a '*' needs at least two labels after it (like *.example.com)");
        return p;
    }
    for (qsizetype i = 0; i < p.labels.size(); ++i) {
        QString label = p.labels.at(i);
        if (i == 0)
            label.remove(QLatin1Char('*'));
        if (!(i == 0 && stars == 1 && label.isEmpty()) && !validLabel(label)) {
            p.problem = QStringLiteral("\"%1\" is not a DNS label").arg(p.labels.at(i).left(64));
            return p;
        }
    }
    return p;
}

} // namespace

QStringList FileHostPatterns::defaults()
{
    // *.oaiusercontent.com: ChatGPT's file links as the Apps SDK documents them; oaisdmntpr<region>:
    // the Azure storage accounts of the links ChatGPT sends live (regions vary per upload). Never
    // *.blob.core.windows.net: that is every Azure customer's storage.
    return {QStringLiteral("*.oaiusercontent.com"), QStringLiteral("oaisdmntpr*.blob.core.windows.net")};
}

QString FileHostPatterns::problem(const QString &pattern)
{
    return parse(pattern).problem;
}

bool FileHostPatterns::allows(const QStringList &patterns, const QString &host, int port)
{
    QString h = host.toLower();
    if (h.endsWith(QLatin1Char('.')))
        h.chop(1);
    for (const QString &pattern : patterns)
        if (matches(pattern, h, port))
            return true;
    return false;
}

bool FileHostPatterns::matches(const QString &pattern, const QString &host, int port)
{
    const Parsed p = parse(pattern);
    if (!p.problem.isEmpty() || p.port != port || host.isEmpty())
        return false;
    const QStringList labels = host.split(QLatin1Char('.'));
    for (const QString &label : labels)
        if (!validLabel(label))
            return false;
    const QString first = p.labels.first();
    const qsizetype star = first.indexOf(QLatin1Char('*'));
    if (star < 0)
        return labels == p.labels;
    const QStringList rest = p.labels.mid(1);
    if (first == QLatin1String("*"))   // one or more whole labels before the rest
        return labels.size() > rest.size() && labels.mid(labels.size() - rest.size()) == rest;
    if (labels.size() != p.labels.size() || labels.mid(1) != rest)
        return false;
    const QString prefix = first.left(star), suffix = first.mid(star + 1);
    const QString &label = labels.first();
    return label.size() > prefix.size() + suffix.size() && label.startsWith(prefix) && label.endsWith(suffix);
}

} // namespace chat2sbx
