#ifndef HK_UNSUPPORTED_H
#define HK_UNSUPPORTED_H

#include <stdint.h>

union HKNumber {
    int32_t i;
    float f;
};

typedef struct {
    int32_t ok;
    union HKNumber number;
    void *context;
} HKBad;

typedef struct {
    char *mutableText;
    int32_t flexible[];
} HKAlsoBad;

typedef struct {
    HKBad bad;
} HKUsesBad;

typedef union {
    int32_t i;
} HKUnionAlias;

struct HKForward;

typedef int32_t HKCount;

#endif
