// Index, translation unit and diagnostic wrappers.

#include "libclang_abi.h"

#include <stdlib.h>

void *hk_clang_create_index(const HKLibClang *lib) { return lib->createIndex(0, 0); }

void hk_clang_dispose_index(const HKLibClang *lib, void *index) { lib->disposeIndex(index); }

int hk_clang_parse(const HKLibClang *lib, void *index, const char *file_name, const char *contents,
                   unsigned long length, const char *const *arguments, int argument_count,
                   unsigned options, void **out_unit) {
  HKCXUnsavedFile unsaved = {file_name, contents, length};
  *out_unit = NULL;
  return lib->parseTranslationUnit2(index, file_name, arguments, argument_count, &unsaved, 1,
                                    options, out_unit);
}

void hk_clang_dispose_translation_unit(const HKLibClang *lib, void *unit) {
  lib->disposeTranslationUnit(unit);
}

unsigned hk_clang_diagnostic_count(const HKLibClang *lib, void *unit) {
  return lib->getNumDiagnostics(unit);
}

HKClangDiagnostic hk_clang_diagnostic(const HKLibClang *lib, void *unit, unsigned index) {
  HKClangDiagnostic result = {0, NULL, {NULL, 0, 0}};
  void *diagnostic = lib->getDiagnostic(unit, index);
  if (!diagnostic) {
    return result;
  }
  result.severity = lib->getDiagnosticSeverity(diagnostic);
  result.message = hk_take_string(lib, lib->getDiagnosticSpelling(diagnostic));
  result.location = hk_resolve_location(lib, lib->getDiagnosticLocation(diagnostic));
  lib->disposeDiagnostic(diagnostic);
  return result;
}

void hk_clang_diagnostic_free(HKClangDiagnostic diagnostic) {
  free(diagnostic.message);
  free(diagnostic.location.file);
}
