// CLibClang: the few libclang functions HandlerKit uses, loaded at run time with dlopen.
//
// This header deliberately does not include <clang-c/Index.h>: users of HandlerKit need neither the
// libclang headers nor a link flag. The value types below have the same layout as libclang's own
// (CXCursor, CXType); libclang passes them by value, which Swift cannot call through a plain function
// pointer, so Swift calls the small C wrappers declared here instead.
//
// Strings returned as `char *` are malloc'd copies owned by the caller: release them with hk_free.

#ifndef HANDLERKIT_CLIBCLANG_H
#define HANDLERKIT_CLIBCLANG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A loaded libclang: the dlopen handle and the resolved functions. Opaque to Swift.
typedef struct HKLibClang HKLibClang;

/// Layout-compatible with libclang's CXCursor.
typedef struct {
  int kind;
  int xdata;
  const void *data[3];
} HKClangCursor;

/// Layout-compatible with libclang's CXType.
typedef struct {
  int kind;
  void *data[2];
} HKClangType;

/// A resolved source location. `file` is malloc'd (or NULL when the location has no file).
typedef struct {
  char *file;
  unsigned line;
  unsigned column;
} HKClangLocation;

/// One libclang diagnostic, copied out of libclang. Release with hk_clang_diagnostic_free.
typedef struct {
  int severity;
  char *message;
  HKClangLocation location;
} HKClangDiagnostic;

/// Releases memory this module handed out (strings, cursor arrays).
void hk_free(void *pointer);

// MARK: Loading

/// Loads libclang from `path` with dlopen and resolves the functions HandlerKit needs.
/// Returns NULL on failure and stores a malloc'd explanation in `*error_message`.
/// A loaded library is never unloaded: LLVM does not support being unloaded reliably.
HKLibClang *hk_libclang_open(const char *path, char **error_message);

/// libclang's version string, e.g. "clang version 21.0.0 (...)".
char *hk_clang_version(const HKLibClang *lib);

// MARK: Translation units

/// Creates an index (clang_createIndex(0, 0)).
void *hk_clang_create_index(const HKLibClang *lib);
void hk_clang_dispose_index(const HKLibClang *lib, void *index);

/// Parses `file_name` whose contents are given in memory (an unsaved file), with `arguments`.
/// Returns libclang's CXErrorCode (0 on success) and stores the translation unit in `*out_unit`.
int hk_clang_parse(const HKLibClang *lib, void *index, const char *file_name, const char *contents,
                   unsigned long length, const char *const *arguments, int argument_count,
                   unsigned options, void **out_unit);
void hk_clang_dispose_translation_unit(const HKLibClang *lib, void *unit);

unsigned hk_clang_diagnostic_count(const HKLibClang *lib, void *unit);
HKClangDiagnostic hk_clang_diagnostic(const HKLibClang *lib, void *unit, unsigned index);
void hk_clang_diagnostic_free(HKClangDiagnostic diagnostic);

// MARK: Cursors

HKClangCursor hk_clang_translation_unit_cursor(const HKLibClang *lib, void *unit);
/// The direct children of `parent`, in declaration order, as a malloc'd array (release with hk_free).
size_t hk_clang_children(const HKLibClang *lib, HKClangCursor parent, HKClangCursor **out_children);
int hk_clang_cursor_kind(const HKLibClang *lib, HKClangCursor cursor);
char *hk_clang_cursor_spelling(const HKLibClang *lib, HKClangCursor cursor);
HKClangType hk_clang_cursor_type(const HKLibClang *lib, HKClangCursor cursor);
/// Where the cursor is, as the user wrote it (the expansion location for macro-generated code).
HKClangLocation hk_clang_cursor_location(const HKLibClang *lib, HKClangCursor cursor);
void hk_clang_location_free(HKClangLocation location);
HKClangCursor hk_clang_cursor_definition(const HKLibClang *lib, HKClangCursor cursor);
int hk_clang_cursor_is_null(const HKLibClang *lib, HKClangCursor cursor);
int hk_clang_cursors_equal(const HKLibClang *lib, HKClangCursor a, HKClangCursor b);
unsigned hk_clang_cursor_hash(const HKLibClang *lib, HKClangCursor cursor);
HKClangType hk_clang_typedef_underlying_type(const HKLibClang *lib, HKClangCursor cursor);
HKClangType hk_clang_enum_integer_type(const HKLibClang *lib, HKClangCursor cursor);
long long hk_clang_enum_constant_value(const HKLibClang *lib, HKClangCursor cursor);
unsigned long long hk_clang_enum_constant_unsigned_value(const HKLibClang *lib, HKClangCursor cursor);
/// The bit width of a bit-field, or -1 when the field is not a bit-field.
int hk_clang_field_bit_width(const HKLibClang *lib, HKClangCursor cursor);

// MARK: Types

HKClangType hk_clang_canonical_type(const HKLibClang *lib, HKClangType type);
char *hk_clang_type_spelling(const HKLibClang *lib, HKClangType type);
HKClangCursor hk_clang_type_declaration(const HKLibClang *lib, HKClangType type);
HKClangType hk_clang_pointee_type(const HKLibClang *lib, HKClangType type);
HKClangType hk_clang_array_element_type(const HKLibClang *lib, HKClangType type);
long long hk_clang_array_size(const HKLibClang *lib, HKClangType type);
/// Size in bytes, or a negative CXTypeLayoutError.
long long hk_clang_type_size(const HKLibClang *lib, HKClangType type);
int hk_clang_type_is_const(const HKLibClang *lib, HKClangType type);
/// The fields of a record type in declaration order, including the unnamed fields that hold
/// anonymous structs and unions, as a malloc'd array (release with hk_free).
size_t hk_clang_record_fields(const HKLibClang *lib, HKClangType record, HKClangCursor **out_fields);

#ifdef __cplusplus
}
#endif

#endif
