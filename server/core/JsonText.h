#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QJsonValue>

namespace chat2sbx::json {

// Pieces of compact JSON written straight into a buffer, byte for byte what QJsonDocument's compact
// form writes (keys of an object sorted, strings escaped the same way), so that a message assembled
// from already serialized parts is identical to one serialized whole, without building it twice.

// `utf8` (valid UTF-8) as a quoted JSON string: '"', '\\' and control characters escaped, the rest as is.
void appendString(QByteArray &out, QByteArrayView utf8);
// A value of any type (scalars included, which QJsonDocument cannot serialize alone).
void appendValue(QByteArray &out, const QJsonValue &value);
QByteArray compact(const QJsonObject &object);

} // namespace chat2sbx::json
