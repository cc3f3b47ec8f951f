// Private: libclang's ABI as far as HandlerKit uses it — the by-value structs that are not in the
// public header, the function types, and the table of resolved functions.

#ifndef HANDLERKIT_LIBCLANG_ABI_H
#define HANDLERKIT_LIBCLANG_ABI_H

#include "CLibClang.h"

typedef struct {
  const void *data;
  unsigned private_flags;
} HKCXString;

typedef struct {
  const void *ptr_data[2];
  unsigned int_data;
} HKCXSourceLocation;

typedef struct {
  const char *file_name;
  const char *contents;
  unsigned long length;
} HKCXUnsavedFile;

/// CXChildVisit_Continue and CXVisit_Continue.
enum { HK_CX_CONTINUE = 1 };

typedef int (*HKCXCursorVisitor)(HKClangCursor cursor, HKClangCursor parent, void *client_data);
typedef int (*HKCXFieldVisitor)(HKClangCursor cursor, void *client_data);

struct HKLibClang {
  void *handle;

  // Strings and files
  const char *(*getCString)(HKCXString);
  void (*disposeString)(HKCXString);
  HKCXString (*getClangVersion)(void);
  HKCXString (*getFileName)(void *file);
  void (*getExpansionLocation)(HKCXSourceLocation, void **file, unsigned *line, unsigned *column,
                               unsigned *offset);

  // Index and translation units
  void *(*createIndex)(int exclude_declarations_from_pch, int display_diagnostics);
  void (*disposeIndex)(void *index);
  int (*parseTranslationUnit2)(void *index, const char *source_filename,
                               const char *const *command_line_args, int num_command_line_args,
                               HKCXUnsavedFile *unsaved_files, unsigned num_unsaved_files,
                               unsigned options, void **out_unit);
  void (*disposeTranslationUnit)(void *unit);

  // Diagnostics
  unsigned (*getNumDiagnostics)(void *unit);
  void *(*getDiagnostic)(void *unit, unsigned index);
  void (*disposeDiagnostic)(void *diagnostic);
  int (*getDiagnosticSeverity)(void *diagnostic);
  HKCXSourceLocation (*getDiagnosticLocation)(void *diagnostic);
  HKCXString (*getDiagnosticSpelling)(void *diagnostic);

  // Cursors
  HKClangCursor (*getTranslationUnitCursor)(void *unit);
  unsigned (*visitChildren)(HKClangCursor parent, HKCXCursorVisitor visitor, void *client_data);
  int (*getCursorKind)(HKClangCursor);
  HKCXString (*getCursorSpelling)(HKClangCursor);
  HKClangType (*getCursorType)(HKClangCursor);
  HKCXSourceLocation (*getCursorLocation)(HKClangCursor);
  HKClangCursor (*getCursorDefinition)(HKClangCursor);
  int (*Cursor_isNull)(HKClangCursor);
  unsigned (*equalCursors)(HKClangCursor, HKClangCursor);
  unsigned (*hashCursor)(HKClangCursor);
  HKClangType (*getTypedefDeclUnderlyingType)(HKClangCursor);
  HKClangType (*getEnumDeclIntegerType)(HKClangCursor);
  long long (*getEnumConstantDeclValue)(HKClangCursor);
  unsigned long long (*getEnumConstantDeclUnsignedValue)(HKClangCursor);
  int (*getFieldDeclBitWidth)(HKClangCursor);
  unsigned (*Cursor_isBitField)(HKClangCursor);

  // Types
  HKClangType (*getCanonicalType)(HKClangType);
  HKCXString (*getTypeSpelling)(HKClangType);
  HKClangCursor (*getTypeDeclaration)(HKClangType);
  HKClangType (*getPointeeType)(HKClangType);
  HKClangType (*getArrayElementType)(HKClangType);
  long long (*getArraySize)(HKClangType);
  long long (*Type_getSizeOf)(HKClangType);
  unsigned (*isConstQualifiedType)(HKClangType);
  unsigned (*Type_visitFields)(HKClangType, HKCXFieldVisitor visitor, void *client_data);
};

/// Copies a libclang string into malloc'd memory and disposes of the original.
char *hk_take_string(const HKLibClang *lib, HKCXString string);

/// Resolves a libclang source location to its expansion location.
HKClangLocation hk_resolve_location(const HKLibClang *lib, HKCXSourceLocation location);

#endif
