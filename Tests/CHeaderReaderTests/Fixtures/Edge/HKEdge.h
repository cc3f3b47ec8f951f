#ifndef HK_EDGE_H
#define HK_EDGE_H

#include <stdbool.h>
#include <stdint.h>

/// The typedef comes before the definition.
typedef struct HKNode HKNode;
struct HKNode {
    int32_t value;
};

/// A tag declared inside a struct has file scope in C.
struct HKOuter {
    struct HKNested {
        int8_t n;
    } nested;
    HKNode node;
};

/// Extreme enumerator values.
typedef enum : int64_t {
    HKWideMin = INT64_MIN,
    HKWideMax = INT64_MAX,
} HKWide;

typedef enum : uint64_t {
    HKUnsignedWideZero = 0,
    HKUnsignedWideMax = UINT64_MAX,
} HKUnsignedWide;

typedef struct {
    bool flag : 1;
    const char *const fixedLabel;
    HKWide wide;
} HKQualified;

typedef struct {
    int32_t kind;
    union {
        int32_t i;
        float f;
    };
} HKAnonymousUnion;

typedef struct {
    long double precise;
    void (*callback)(int);
    HKNode *next;
} HKMoreUnsupported;

#endif
