// Every setting the product names to its user (the first-run guide, the tray, notifications, the
// CLI's and tools' messages: the C++ of server/, ui/ and app/, and the README's configuration table)
// is one the loader reads: an environment variable CHAT2SBX_* or a config.json key. Following the
// guide must never lead to a key that does not exist (the guide once said "sbxPath in config.json").
#include "TestSupport.h"

#include "config/ConfigLoader.h"

#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

using namespace chat2sbx;

namespace {

// Names that are not settings, on purpose: the build's version macro, a test knob of `setup`, and
// the variables chat2sbx itself sets for its children (the tunnel key and the local token).
const QSet<QString> kNotSettings{QStringLiteral("CHAT2SBX_VERSION"), QStringLiteral("CHAT2SBX_SETUP_PROGRESS_MS"),
                                 QStringLiteral("CHAT2SBX_TUNNEL_KEY"), QStringLiteral("CHAT2SBX_LOCAL_TOKEN")};

// The text of a C++ file with adjacent string literals joined ("…in " "config.json" reads as one).
QString joinedLiterals(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QString text = QString::fromUtf8(f.readAll());
    static const QRegularExpression seam(QStringLiteral("\"\\s*\\n\\s*(QStringLiteral\\()?\""));
    return text.replace(seam, QString());
}

} // namespace

class TestGuideSettings : public QObject {
    Q_OBJECT
private slots:
    void everyNamedSettingIsRead()
    {
        QSet<QString> envNames, jsonKeys;
        for (const auto &[env, json] : ConfigLoader::settingNames()) {
            envNames.insert(env);
            if (!json.isEmpty())
                jsonKeys.insert(json);
        }
        QVERIFY(jsonKeys.contains(QStringLiteral("sbx")) && !jsonKeys.contains(QStringLiteral("sbxPath")));

        static const QRegularExpression envName(QStringLiteral("CHAT2SBX_[A-Z0-9_]+"));
        // A camelCase `someKey in config.json`, or any quoted `"key" in config.json` (`\"key\"` in a literal);
        // plain words ("saved in config.json") are prose.
        static const QRegularExpression jsonKey(
            QStringLiteral("(?:\\\\?\"([A-Za-z][A-Za-z0-9]*)\\\\?\"|\\b([a-z]+[A-Z][A-Za-z0-9]*)) in config\\.json"));
        QStringList unknown;
        int files = 0, named = 0;
        const QString root = test::sourceDir();
        for (const QString &dir : {QStringLiteral("server"), QStringLiteral("ui"), QStringLiteral("app")}) {
            QDirIterator it(root + QLatin1Char('/') + dir, {QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                const QString text = joinedLiterals(path);
                ++files;
                for (auto m = envName.globalMatch(text); m.hasNext();) {
                    const QString name = m.next().captured(0);
                    ++named;
                    if (!envNames.contains(name) && !kNotSettings.contains(name))
                        unknown << QStringLiteral("%1: %2").arg(path.mid(root.size() + 1), name);
                }
                for (auto m = jsonKey.globalMatch(text); m.hasNext();) {
                    const auto match = m.next();
                    const QString key = match.captured(1).isEmpty() ? match.captured(2) : match.captured(1);
                    ++named;
                    if (!jsonKeys.contains(key))
                        unknown << QStringLiteral("%1: \"%2\" in config.json").arg(path.mid(root.size() + 1), key);
                }
            }
        }
        // The README's configuration table: `| CHAT2SBX_X | default | … (config `key`) … |`.
        const QString readme = QString::fromUtf8(test::readFile(root + QStringLiteral("/README.md")));
        static const QRegularExpression row(QStringLiteral("^\\| (CHAT2SBX_[A-Z0-9_]+) \\|.*\\(config `([A-Za-z0-9]+)`"),
                                            QRegularExpression::MultilineOption);
        int rows = 0;
        for (auto m = row.globalMatch(readme); m.hasNext();) {
            const auto match = m.next();
            ++rows;
            if (!envNames.contains(match.captured(1)))
                unknown << QStringLiteral("README.md: %1").arg(match.captured(1));
            if (!jsonKeys.contains(match.captured(2)))
                unknown << QStringLiteral("README.md: config `%1`").arg(match.captured(2));
        }
        qInfo("%d files, %d names of settings, %d README rows with their key", files, named, rows);
        QVERIFY(named > 20 && rows > 5);
        QVERIFY2(unknown.isEmpty(), qPrintable(QStringLiteral("named but not read by the loader:\n") + unknown.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestGuideSettings)
#include "tst_guide_settings.moc"
