#ifndef HK_BROKEN_H
#define HK_BROKEN_H

typedef struct {
    double x;
    undeclared_type_t y;
} HKBroken;

#endif
