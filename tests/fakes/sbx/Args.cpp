#include "Args.h"

namespace fakesbx {

QString ParsedArgs::value(const QString &flag) const
{
    const QStringList v = m_values.value(flag);
    return v.isEmpty() ? QString() : v.last();
}

ParsedArgs parseArgs(const QStringList &args, const QStringList &booleans,
                     const QStringList &withValue)
{
    ParsedArgs out;
    for (int i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == QLatin1String("--")) {
            out.positional += args.mid(i + 1);
            break;
        }
        if (arg.size() < 2 || !arg.startsWith(QLatin1Char('-'))) {
            out.positional << arg;
            continue;
        }
        const qsizetype eq = arg.indexOf(QLatin1Char('='));
        const QString name = eq < 0 ? arg : arg.left(eq);
        if (booleans.contains(name)) {
            if (eq >= 0) {
                out.ok = false;
                out.error = QStringLiteral("flag %1 does not take a value").arg(name);
                return out;
            }
            out.m_values[name] << QStringLiteral("true");
        } else if (withValue.contains(name)) {
            QString value;
            if (eq >= 0) {
                value = arg.mid(eq + 1);
            } else if (i + 1 < args.size()) {
                value = args.at(++i);
            } else {
                out.ok = false;
                out.error = QStringLiteral("flag needs an argument: %1").arg(name);
                return out;
            }
            out.m_values[name] << value;
        } else {
            out.ok = false;
            out.error = QStringLiteral("unknown flag: %1").arg(name);
            return out;
        }
    }
    return out;
}

} // namespace fakesbx
