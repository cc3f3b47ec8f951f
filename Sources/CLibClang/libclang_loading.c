// Loading libclang with dlopen and resolving the functions in HKLibClang.

#include "libclang_abi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hk_free(void *pointer) { free(pointer); }

static char *hk_format_error(const char *prefix, const char *detail) {
  const char *safe_detail = detail ? detail : "unknown error";
  size_t length = strlen(prefix) + strlen(safe_detail) + 1;
  char *message = malloc(length);
  if (message) {
    snprintf(message, length, "%s%s", prefix, safe_detail);
  }
  return message;
}

#define HK_RESOLVE(field, symbol)                                                                  \
  do {                                                                                             \
    *(void **)(&lib->field) = dlsym(handle, symbol);                                               \
    if (!lib->field) {                                                                             \
      *error_message = hk_format_error("missing function ", symbol);                              \
      free(lib);                                                                                   \
      return NULL;                                                                                 \
    }                                                                                              \
  } while (0)

HKLibClang *hk_libclang_open(const char *path, char **error_message) {
  *error_message = NULL;
  // RTLD_LOCAL keeps this libclang's symbols out of the global namespace, so two different
  // libclangs (say the toolchain's and the system's) can be loaded into one process.
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    *error_message = hk_format_error("", dlerror());
    return NULL;
  }
  HKLibClang *lib = calloc(1, sizeof(HKLibClang));
  if (!lib) {
    *error_message = hk_format_error("", "out of memory");
    return NULL;
  }
  lib->handle = handle;
  // On failure below the handle stays open: unloading LLVM is not reliable, and it is a one-off.
  HK_RESOLVE(getCString, "clang_getCString");
  HK_RESOLVE(disposeString, "clang_disposeString");
  HK_RESOLVE(getClangVersion, "clang_getClangVersion");
  HK_RESOLVE(getFileName, "clang_getFileName");
  HK_RESOLVE(getExpansionLocation, "clang_getExpansionLocation");
  HK_RESOLVE(createIndex, "clang_createIndex");
  HK_RESOLVE(disposeIndex, "clang_disposeIndex");
  HK_RESOLVE(parseTranslationUnit2, "clang_parseTranslationUnit2");
  HK_RESOLVE(disposeTranslationUnit, "clang_disposeTranslationUnit");
  HK_RESOLVE(getNumDiagnostics, "clang_getNumDiagnostics");
  HK_RESOLVE(getDiagnostic, "clang_getDiagnostic");
  HK_RESOLVE(disposeDiagnostic, "clang_disposeDiagnostic");
  HK_RESOLVE(getDiagnosticSeverity, "clang_getDiagnosticSeverity");
  HK_RESOLVE(getDiagnosticLocation, "clang_getDiagnosticLocation");
  HK_RESOLVE(getDiagnosticSpelling, "clang_getDiagnosticSpelling");
  HK_RESOLVE(getTranslationUnitCursor, "clang_getTranslationUnitCursor");
  HK_RESOLVE(visitChildren, "clang_visitChildren");
  HK_RESOLVE(getCursorKind, "clang_getCursorKind");
  HK_RESOLVE(getCursorSpelling, "clang_getCursorSpelling");
  HK_RESOLVE(getCursorType, "clang_getCursorType");
  HK_RESOLVE(getCursorLocation, "clang_getCursorLocation");
  HK_RESOLVE(getCursorDefinition, "clang_getCursorDefinition");
  HK_RESOLVE(Cursor_isNull, "clang_Cursor_isNull");
  HK_RESOLVE(equalCursors, "clang_equalCursors");
  HK_RESOLVE(hashCursor, "clang_hashCursor");
  HK_RESOLVE(getTypedefDeclUnderlyingType, "clang_getTypedefDeclUnderlyingType");
  HK_RESOLVE(getEnumDeclIntegerType, "clang_getEnumDeclIntegerType");
  HK_RESOLVE(getEnumConstantDeclValue, "clang_getEnumConstantDeclValue");
  HK_RESOLVE(getEnumConstantDeclUnsignedValue, "clang_getEnumConstantDeclUnsignedValue");
  HK_RESOLVE(getFieldDeclBitWidth, "clang_getFieldDeclBitWidth");
  HK_RESOLVE(Cursor_isBitField, "clang_Cursor_isBitField");
  HK_RESOLVE(getCanonicalType, "clang_getCanonicalType");
  HK_RESOLVE(getTypeSpelling, "clang_getTypeSpelling");
  HK_RESOLVE(getTypeDeclaration, "clang_getTypeDeclaration");
  HK_RESOLVE(getPointeeType, "clang_getPointeeType");
  HK_RESOLVE(getArrayElementType, "clang_getArrayElementType");
  HK_RESOLVE(getArraySize, "clang_getArraySize");
  HK_RESOLVE(Type_getSizeOf, "clang_Type_getSizeOf");
  HK_RESOLVE(isConstQualifiedType, "clang_isConstQualifiedType");
  HK_RESOLVE(Type_visitFields, "clang_Type_visitFields");
  return lib;
}

char *hk_take_string(const HKLibClang *lib, HKCXString string) {
  const char *text = lib->getCString(string);
  if (!text) {
    text = "";
  }
  size_t length = strlen(text) + 1;
  char *copy = malloc(length);
  if (copy) {
    memcpy(copy, text, length);
  }
  lib->disposeString(string);
  return copy;
}

HKClangLocation hk_resolve_location(const HKLibClang *lib, HKCXSourceLocation location) {
  HKClangLocation result = {NULL, 0, 0};
  void *file = NULL;
  unsigned offset = 0;
  lib->getExpansionLocation(location, &file, &result.line, &result.column, &offset);
  if (file) {
    result.file = hk_take_string(lib, lib->getFileName(file));
  }
  return result;
}

void hk_clang_location_free(HKClangLocation location) { free(location.file); }

char *hk_clang_version(const HKLibClang *lib) {
  return hk_take_string(lib, lib->getClangVersion());
}
