// runtime/PidFile over QLockFile: a second holder of the same path is refused with the message
// `chat2sbx serve` prints, runningPid reads the holder back, and the file of a dead process is taken over.
#include "TestSupport.h"

#include "runtime/PidFile.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;

class TestPidFile : public QObject {
    Q_OBJECT

private slots:
    void secondHolderIsRefused()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("chat2sbx.pid"));
        const qint64 self = QCoreApplication::applicationPid();
        PidFile first(path);
        PidFile second(path);
        QString error;
        QVERIFY2(first.acquire(error), qPrintable(error));
        QCOMPARE(PidFile::runningPid(path), self);
        QCOMPARE(QFile::permissions(path) & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());

        QVERIFY(!second.acquire(error));
        QCOMPARE(error, QStringLiteral("another chat2sbx server is already running (PID %1, %2)").arg(self).arg(path));
        QCOMPARE(PidFile::runningPid(path), self);

        first.release();
        QVERIFY(!QFile::exists(path));
        QCOMPARE(PidFile::runningPid(path), qint64(0));
        error.clear();
        QVERIFY2(second.acquire(error), qPrintable(error));
        QCOMPARE(PidFile::runningPid(path), self);
    }

    // A server killed with -9 leaves its file behind; the next one takes it over.
    void staleFileOfADeadProcessIsTakenOver()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("chat2sbx.pid"));
        QProcess gone;
        gone.start(QStringLiteral("/bin/true"), QStringList());
        QVERIFY(gone.waitForStarted());
        const qint64 deadPid = gone.processId();
        QVERIFY(gone.waitForFinished());

        // The lock file exactly as QLockFile writes it, but naming the dead process.
        QByteArray content;
        {
            QLockFile model(path);
            QVERIFY(model.tryLock(0));
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            content = f.readAll();
        }
        QVERIFY(!QFile::exists(path));
        content = QByteArray::number(deadPid) + content.mid(content.indexOf('\n'));
        QFile stale(path);
        QVERIFY(stale.open(QIODevice::WriteOnly));
        stale.write(content);
        stale.close();
        QCOMPARE(PidFile::runningPid(path), qint64(0));

        PidFile pidFile(path);
        QString error;
        QVERIFY2(pidFile.acquire(error), qPrintable(error));
        QCOMPARE(PidFile::runningPid(path), QCoreApplication::applicationPid());
    }
};

QTEST_GUILESS_MAIN(TestPidFile)
#include "tst_pid_file.moc"
