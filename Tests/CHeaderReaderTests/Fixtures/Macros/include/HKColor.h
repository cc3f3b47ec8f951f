#ifndef HK_COLOR_H
#define HK_COLOR_H

#include "HKAvailability.h"
#include <HKPoint.h>

#define HK_MAX_NAME 8
#define HK_FIELD(type, name) type name;

typedef NS_ENUM(NSInteger, HKColor) {
    HKColorRed = -1,
    HKColorGreen,
    HKColorBlue = 1 << 4,
};

typedef CF_ENUM(uint8_t, HKSmall) {
    HKSmallOne = 1,
    HKSmallMax = UINT8_MAX,
};

typedef NS_OPTIONS(NSUInteger, HKStyle) {
    HKStyleBold = 1UL << 0,
    HKStyleHuge = 1UL << 63,
};

typedef struct {
    HK_FIELD(HKColor, color)
    HKStyle style;
    char name[HK_MAX_NAME];
    NSInteger count;
    HKPoint at;
} HKPaint;

#endif
