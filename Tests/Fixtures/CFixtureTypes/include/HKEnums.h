// The enums of CFixtureTypes.h, in a header of their own to exercise #include.
#ifndef CFIXTURETYPES_ENUMS_H
#define CFIXTURETYPES_ENUMS_H

#include <stdint.h>

// NS_ENUM / NS_CLOSED_ENUM-style macros: an enum with a fixed underlying type and Swift's
// enum_extensibility attribute. (Apple's own expansion, `enum X : T X; enum X : T`, is Objective-C only:
// clang rejects its forward declaration in C.)
#define HK_ENUM(_type, _name) enum __attribute__((enum_extensibility(open))) _name : _type
#define HK_CLOSED_ENUM(_type, _name) enum __attribute__((enum_extensibility(closed))) _name : _type

/// A plain C enum (Swift imports it as a struct with a raw value).
typedef enum HKColor {
    HKColorRed,
    HKColorGreen = 5,
    HKColorBlue = -3,
} HKColor;

/// An NS_ENUM-style enum with every 64-bit extreme (Swift imports it as an open Swift enum).
typedef HK_ENUM(int64_t, HKMode) {
    HKModeLowest = INT64_MIN,
    HKModeOff = 0,
    HKModeOn = 1,
    HKModeHighest = INT64_MAX,
} HKMode;

/// An NS_CLOSED_ENUM-style enum: Swift rejects raw values it does not declare.
typedef HK_CLOSED_ENUM(uint8_t, HKState) {
    HKStateIdle = 0,
    HKStateBusy = 200,
} HKState;

#endif
