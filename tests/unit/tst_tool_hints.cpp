// The hints ChatGPT acts on (readOnlyHint, destructiveHint, idempotentHint, openWorldHint): every
// tool of the whole product registry, as tools/list sends it, against one table written from what
// each tool does. A tool added without a row, or a row whose tool is gone, fails too.
#include "mcp/ToolRegistry.h"
#include "runtime/Controller.h"
#include "ManualClock.h"
#include "TestSupport.h"

#include <QJsonArray>
#include <QtTest>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

struct Hints {
    bool readOnly;
    bool destructive;
    bool idempotent;
    bool openWorld;
};

// readOnly: changes nothing. destructive: may delete or overwrite. idempotent: the same call again
// changes nothing more. openWorld: may reach the internet (a command, a download).
const QHash<QString, Hints> &expectedHints()
{
    static const QHash<QString, Hints> table{
        {"sandbox_create", {false, false, false, false}},    // a new sandbox each call (or the workspace's running one)
        {"sandbox_get", {true, false, true, false}},
        {"sandbox_list", {true, false, true, false}},
        {"sandbox_destroy", {false, true, true, false}},     // gone for good; destroying again changes nothing
        {"sandbox_expose", {false, false, true, false}},     // publishes a port on the host, same port again: same URL
        {"sandbox_unexpose", {false, true, true, false}},    // takes a cloud port's public URL away; again: nothing more
        {"sandbox_checkpoint", {false, true, false, false}}, // stops the sandbox (commands may end); each call a new checkpoint
        {"sandbox_checkpoints", {true, false, true, false}},
        {"sandbox_restore", {false, true, false, false}},    // replaces the disk and a scratch workspace (the present is checkpointed first)
        {"sandbox_fork", {false, true, false, false}},       // a new sandbox; given a sandbox_id it checkpoints (stops) it first
        {"sandbox_move", {false, true, false, false}},       // stops the sandbox (commands end) and replaces its runtime elsewhere
        {"sandbox_checkpoint_delete", {false, true, true, false}},   // removes a checkpoint for good; again: nothing more
        {"bash", {false, true, false, true}},                // any command, network included
        {"bash_poll", {true, false, false, false}},          // reads new output
        {"bash_write", {false, true, false, true}},          // input to a running command
        {"bash_stop", {false, true, true, false}},           // kills a command
        {"bash_list", {true, false, true, false}},
        {"read", {true, false, true, false}},
        {"write", {false, true, true, false}},               // overwrites a file with the same content
        {"edit", {false, true, false, false}},               // replaces text; the same edit again does not apply
        {"apply_patch", {false, true, false, false}},        // may delete files
        {"search", {true, false, true, false}},
        {"list", {true, false, true, false}},
        {"view_image", {true, false, true, false}},
        {"import_file", {false, false, false, true}},        // downloads an attachment; never overwrites
        {"export_file", {false, false, false, true}},        // a file to the user's computer; a repeat is a new copy
        {"show_changes", {true, false, true, false}},
        {"export_changes", {false, false, true, false}},     // updates its own branch in the user's repository
        {"network_request", {false, false, true, false}},    // asks the user; the same request again is the same one
        {"workspace_list", {true, false, true, false}},
        {"workspace_request", {false, false, true, false}},  // asks the user; a repeat returns the same approval
    };
    return table;
}

} // namespace

class TestToolHints : public QObject {
    Q_OBJECT

    ManualClock m_clock;

private slots:
    void initTestCase() { qunsetenv("DBUS_SESSION_BUS_ADDRESS"); }

    void everyToolCarriesTheHintsOfTheTable()
    {
        TestEnvironment env;
        Controller controller(env.config(), m_clock);
        const QJsonArray tools = controller.tools().toJson();
        QSet<QString> listed;
        for (const QJsonValue &t : tools) {
            const QString name = t.toObject().value("name").toString();
            listed.insert(name);
            QVERIFY2(expectedHints().contains(name), qPrintable(name + ": a tool without a row in the table"));
            const Hints want = expectedHints().value(name);
            const QJsonObject a = t.toObject().value("annotations").toObject();
            for (const auto &[key, value] : {std::pair{"readOnlyHint", want.readOnly}, std::pair{"destructiveHint", want.destructive},
                                             std::pair{"idempotentHint", want.idempotent}, std::pair{"openWorldHint", want.openWorld}}) {
                QVERIFY2(a.value(QLatin1String(key)).isBool(), qPrintable(name + ": " + key + " is not sent explicitly"));
                QVERIFY2(a.value(QLatin1String(key)).toBool() == value,
                         qPrintable(QStringLiteral("%1: %2 is %3, the table says %4").arg(name, QLatin1String(key))
                                        .arg(a.value(QLatin1String(key)).toBool()).arg(value)));
            }
            // A read-only tool is never called destructive (the hint means nothing then and misleads).
            QVERIFY2(!(want.readOnly && want.destructive), qPrintable(name));
        }
        for (auto it = expectedHints().cbegin(); it != expectedHints().cend(); ++it)
            QVERIFY2(listed.contains(it.key()), qPrintable(it.key() + ": in the table but not registered"));
    }
};

QTEST_GUILESS_MAIN(TestToolHints)
#include "tst_tool_hints.moc"
