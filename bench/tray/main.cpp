// chat2sbx-bench-tray: the tray's own figures (bench/README.md, "The tray"). Run on a desktop
// (bench/tray.sh runs it in tests/desktop/desktop-session.sh: Xvfb, openbox, trayer):
//   chat2sbx-bench-tray bare          a bare QSystemTrayIcon program built the same way: RSS once idle
//   chat2sbx-bench-tray popup N       the popup over N sandboxes (the tests' in-memory models): the
//                                     time from opening to painted (median and worst of 7), and RSS
//                                     with the popup made and closed (as the tray starts), while open
//                                     and 1 s after it closed again
// One JSON object on stdout.
#include "../../tests/unit/ui_popup_fakes.h"

#include "popup/PopupWindow.h"
#include "tray/TrayIcons.h"
#include "tray/TrayResources.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSystemTrayIcon>
#include <QTimer>

#include <algorithm>
#include <cstdio>

using namespace chat2sbx::ui;
using namespace chat2sbx::ui::test;

namespace {

double rssMiB()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return -1;
}

void settle(int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

void print(const QJsonObject &o)
{
    const QByteArray out = QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(out.constData(), 1, static_cast<size_t>(out.size()), stdout);
}

// Marks the popup painted once a paint event of the window has been handled.
class PaintWatch : public QObject {
public:
    bool painted = false;
    bool eventFilter(QObject *, QEvent *e) override
    {
        if (e->type() == QEvent::Paint)
            QTimer::singleShot(0, this, [this] { painted = true; });
        return false;
    }
};

// Runs the event loop until `watch` saw the window painted (at most 30 s after `since` started).
void untilPainted(const PaintWatch &watch, const QElapsedTimer &since)
{
    while (!watch.painted && since.elapsed() < 30000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
}

int bare()
{
    QSystemTrayIcon icon(trayIcon(TrayState::LocalOnly, 0));
    icon.show();
    settle(3000);
    print({{QStringLiteral("mode"), QStringLiteral("bare")}, {QStringLiteral("rss_mib"), rssMiB()}});
    return 0;
}

int popup(int count)
{
    FakeApprovals approvals;
    FakeSandboxes sandboxes;
    FakeStatus status;
    status.info.server = StatusInfo::Server::Running;
    status.info.endpointUrl = QStringLiteral("http://127.0.0.1:8765/mcp");
    for (int i = 0; i < count; ++i) {
        SandboxRow row;
        row.id = QStringLiteral("sbx_%1").arg(i, 24, 16, QLatin1Char('0'));
        row.name = QStringLiteral("scratch-%1").arg(i, 4, 16, QLatin1Char('0'));
        row.workspace = QStringLiteral("scratch folder");
        row.workspaceMode = QStringLiteral("managed");
        row.state = i % 3 == 0 ? QStringLiteral("stopped") : QStringLiteral("running");
        sandboxes.rows << row;
    }
    // As the tray has it: the popup is made when it is first opened, then kept.
    QElapsedTimer first;
    first.start();
    auto *window = new PopupWindow(approvals, sandboxes, status);
    const double madeMs = first.nsecsElapsed() / 1e6;
    PaintWatch firstPaint;
    window->installEventFilter(&firstPaint);
    window->showNear({});
    untilPainted(firstPaint, first);
    const double firstOpenMs = first.nsecsElapsed() / 1e6;
    window->removeEventFilter(&firstPaint);
    settle(300);
    window->hide();
    settle(1000);
    const double before = rssMiB();
    PaintWatch watch;
    window->installEventFilter(&watch);
    QList<double> times;
    double open = 0;
    for (int i = 0; i < 7; ++i) {
        watch.painted = false;
        QElapsedTimer t;
        t.start();
        window->showNear({});
        untilPainted(watch, t);
        times << t.nsecsElapsed() / 1e6;
        settle(200);
        open = std::max(open, rssMiB());
        window->hide();
        settle(200);
    }
    settle(1000);
    const double closed = rssMiB();
    delete window;
    std::sort(times.begin(), times.end());
    print({{QStringLiteral("mode"), QStringLiteral("popup")},
           {QStringLiteral("sandboxes"), count},
           {QStringLiteral("first_open_made_and_painted_ms"), firstOpenMs},
           {QStringLiteral("first_open_made_ms"), madeMs},
           {QStringLiteral("open_to_painted_ms_median"), times.at(times.size() / 2)},
           {QStringLiteral("open_to_painted_ms_worst"), times.last()},
           {QStringLiteral("rss_mib_before"), before},
           {QStringLiteral("rss_mib_open"), open},
           {QStringLiteral("rss_mib_after_close"), closed}});
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setQuitOnLastWindowClosed(false);
    ensureResources();
    const QString mode = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();
    if (mode == QLatin1String("bare"))
        return bare();
    if (mode == QLatin1String("popup"))
        return popup(argc > 2 ? std::max(0, QString::fromLocal8Bit(argv[2]).toInt()) : 100);
    std::fputs("usage: chat2sbx-bench-tray bare | popup [N]\n", stderr);
    return 2;
}
