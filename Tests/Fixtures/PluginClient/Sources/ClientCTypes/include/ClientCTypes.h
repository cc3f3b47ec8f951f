// A C target of the client: the build plugin passes this folder to handlergen, which generates the
// JSON conversion of the C types handlers bind.
#ifndef CLIENTCTYPES_H
#define CLIENTCTYPES_H

#include <stdint.h>

typedef struct {
    double x;
    double y;
    int32_t tag;
} HKPoint;

typedef enum HKDirection {
    HKDirectionUp = 1,
    HKDirectionDown = 2,
} HKDirection;

#endif
