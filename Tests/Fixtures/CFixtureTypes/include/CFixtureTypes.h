// C types that handlers in CTypeCodingTests bind. handlergen reads this header (and what it includes)
// with libclang and generates a Codable conformance for each type a handler parameter names.
#ifndef CFIXTURETYPES_H
#define CFIXTURETYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "HKEnums.h"

/// The commonest form: a plain typedef of an anonymous struct.
typedef struct {
    double x;
    double y;
    int32_t tag;
} HKPoint;

/// The capacity of `HKEverything.name`, a macro as headers usually have it.
#define HK_NAME_CAPACITY 16
#define HK_VALUE_COUNT (1 + 2)

/// A tagged struct with a field of every kind HandlerKit converts.
struct HKEverything {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    long platformLong;
    unsigned char byte;
    float single;
    double real;
    bool flag;
    unsigned int small : 3;
    HKColor color;
    HKMode mode;
    HKPoint origin;
    struct {
        int32_t depth;
        struct {
            uint16_t code;
            char label[4];
        } deeper;
    } inner;
    struct {
        int32_t flattened;
    };
    int32_t values[HK_VALUE_COUNT];
    HKPoint corners[2];
    int16_t grid[2][2];
    char name[HK_NAME_CAPACITY];
};

/// C strings by pointer: each a string or NULL.
typedef struct {
    const char *text;
    const char *notes[2];
    int32_t size;
} HKLabel;

/// A struct declared through a typedef of its tag.
typedef struct HKLine_ {
    HKPoint from;
    HKPoint to;
    HKState state;
} HKLine;

int32_t hk_fixture_version(void);

#endif
