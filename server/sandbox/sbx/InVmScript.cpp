#include "sandbox/sbx/InVmScript.h"

#include <QFile>
#include <QHash>

static void initVmScripts()
{
    Q_INIT_RESOURCE(vm_scripts);
}

namespace chat2sbx {

QString inVmScript(const QString &name)
{
    static const QHash<QString, QString> scripts = [] {
        initVmScripts();
        QHash<QString, QString> all;
        for (const QString &file : {QStringLiteral("bootstrap.sh"), QStringLiteral("docker-images.sh"), QStringLiteral("moved-workspace.sh"),
                                  QStringLiteral("provision.sh")}) {
            QFile f(QStringLiteral(":/chat2sbx/vm/") + file);
            if (f.open(QIODevice::ReadOnly))
                all.insert(file, QString::fromUtf8(f.readAll()));
        }
        return all;
    }();
    Q_ASSERT(scripts.contains(name));
    return scripts.value(name);
}

} // namespace chat2sbx
