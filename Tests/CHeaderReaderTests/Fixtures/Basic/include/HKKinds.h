#ifndef HK_KINDS_H
#define HK_KINDS_H

#include <stdbool.h>
#include <stdint.h>
#include "HKPoint.h"

/// A plain C enum with a fixed underlying type.
typedef enum : uint8_t {
    HKShapeCircle = 0,
    HKShapeSquare = 7,
    HKShapeLast = 255,
} HKShape;

/// A tagged enum without fixed type, with a negative value.
enum HKLevel {
    HKLevelLow = -1,
    HKLevelMid = 0,
    HKLevelHigh = 2147483647,
};

/// A tagged struct, named through its typedef as well.
typedef struct HKSize_ {
    float width;
    float height;
} HKSize;

struct HKLine {
    HKPoint from;
    HKPoint to;
};

/// Every field kind.
typedef struct {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    long l;
    unsigned long long ull;
    char c;
    float f;
    double d;
    bool flag;
    HKShape shape;
    enum HKLevel level;
    HKPoint origin;
    struct HKLine line;
    HKSize size;
    struct {
        int32_t a;
        struct {
            uint16_t deep;
        } innermost;
    } inner;
    struct {
        double lat;
        double lon;
    };
    int32_t values[4];
    double matrix[2][3];
    HKPoint corners[2];
    char name[16];
    const char *label;
    const char *labels[2];
    enum { HKModeA, HKModeB } mode;
    unsigned int bits : 3;
} HKEverything;

#endif
