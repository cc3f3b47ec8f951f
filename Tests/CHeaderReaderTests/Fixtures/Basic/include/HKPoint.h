#ifndef HK_POINT_H
#define HK_POINT_H

#include <stdint.h>

typedef struct {
    double x;
    double y;
    int32_t tag;
} HKPoint;

#endif
