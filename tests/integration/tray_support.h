#pragma once

// For the tray integration tests: one tray session over a real Controller, popup screenshots and
// settling the widgets between rebuilds.
#include "ControllerSupport.h"
#include "McpTestClient.h"
#include "popup/ApprovalsSection.h"
#include "popup/PopupWindow.h"
#include "SandboxHarness.h"
#include "bindings/ServiceModels.h"
#include "TestSupport.h"
#include "tray/TrayApp.h"
#include "runtime/Controller.h"

#include <QLabel>
#include <QSignalSpy>
#include <QString>

#include <memory>

class QWidget;

namespace chat2sbx::test {

// <build>/test-output/screenshots/<name>.png; prints and returns the path (empty if it failed).
QString saveScreenshot(QWidget &widget, const QString &name);
// Lets deleteLater'd cards of a previous rebuild go before widgets are looked up.
void settleWidgets();

// For a test that runs on a desktop of its own: runs this test again (argv) inside
// tests/desktop/<sessionScript>; returns only when that could not start (1, `what` says so).
int execInside(const char *sessionScript, const char *what, int argc, char **argv);

// One tray session: Controller + service models + TrayApp + an initialized MCP client.
struct TraySession {
    explicit TraySession(TestEnvironment &e) : env(e)
    {
        pointFakeSbxAt(env);
        // Decisions at once; the undo window has tests of its own (ui_popup, tray_desktop).
        ui::ApprovalsSection::setUndoWindowMs(0);
        controller = std::make_unique<Controller>(env.config());
        models = ui::makeServiceModels(*controller);
        tray = std::make_unique<ui::TrayApp>(*models.approvals, *models.sandboxes, *models.status,
                                             ui::TrayPaths{env.dataRoot(), env.dataRoot() + QStringLiteral("/AGENTS.md"),
                                                           chat2sbxBinary()});
    }
    ~TraySession()
    {
        stopController(*controller);
        tray.reset();
    }
    bool start(QString &error) { return startController(*controller, error) && mcp.open(&error); }
    ui::PopupWindow &popup() { return tray->popup(); }
    template <typename T>
    T *find(const QString &name)
    {
        settleWidgets();
        return popup().findChild<T *>(name);
    }
    QString labelText(const QString &name)
    {
        QLabel *l = find<QLabel>(name);
        return l ? l->text() : QStringLiteral("<no label %1>").arg(name);
    }

    TestEnvironment &env;
    std::unique_ptr<Controller> controller;
    ui::ServiceModels models;
    std::unique_ptr<ui::TrayApp> tray;
    McpTestClient mcp{env.mcpUrl()};
};

} // namespace chat2sbx::test
