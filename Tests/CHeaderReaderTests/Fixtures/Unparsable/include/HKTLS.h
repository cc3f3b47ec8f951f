#ifndef HK_TLS_H
#define HK_TLS_H

// Like a TLS library's prefixed symbols: a function-like macro used with the wrong number of
// arguments, which libclang reports as an error. It also mentions Data and HKSession in passing.
#define HK_PREFIX(name) hk_##name
#define HK_seal HK_PREFIX(seal, Data)

/* Seals Data for an HKSession. */
int HK_seal(const unsigned char *bytes, unsigned long length);

typedef struct {
    int length;
    unsigned char bytes[16];
} HKSecret;

#endif
