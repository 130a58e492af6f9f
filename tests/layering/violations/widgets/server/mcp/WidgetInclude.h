#pragma once

#include <QWidget>   // server/ with a widgets header: must be refused
