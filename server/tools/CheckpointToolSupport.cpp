#include "tools/CheckpointToolSupport.h"

#include "config/Config.h"
#include "tools/ToolArgs.h"
#include "sandbox/changes/DockerImageKeeper.h"

#include <QJsonArray>
#include <QTimer>

namespace chat2sbx {

QJsonObject dockerImagesProperty(const QString &what)
{
    QJsonObject images = schema::arrayOf(schema::str(QStringLiteral("an image reference, e.g. myapp:dev"), 300), what);
    images.insert(QStringLiteral("maxItems"), DockerImageKeeper::kMaxImages);
    return images;
}

QStringList dockerImagesOf(const ToolCall &call)
{
    QStringList images;
    for (const QJsonValue &v : call.arguments.value(QStringLiteral("docker_images")).toArray())
        images << v.toString().trimmed();
    return images;
}

void answerStillRunningAfter(const Config &config, QObject &context, const ToolResponder &responder,
                             const QJsonObject &stillRunning)
{
    QTimer::singleShot(config.sandboxAnswerWithinMs, &context, [responder, stillRunning] { responder.ok(stillRunning); });
}

} // namespace chat2sbx
