#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace chat2sbx {

// Checks tool arguments against the subset of JSON Schema our tools use: type (object, string,
// integer, number, boolean, array, null; or a list of them), properties, required,
// additionalProperties (false or a schema), enum, const, minimum/maximum, exclusiveMinimum/Maximum,
// minLength/maxLength, pattern, items, minItems/maxItems.
// Unknown keywords are ignored. The message names the offending field so a model can fix the call.
class SchemaValidator {
public:
    // Returns an empty string when `value` conforms, else e.g.
    // `invalid argument "timeout_ms": must be at most 600000`.
    static QString validate(const QJsonObject &schema, const QJsonValue &value);

private:
    static QString check(const QJsonObject &schema, const QJsonValue &value, const QString &path);
};

} // namespace chat2sbx
