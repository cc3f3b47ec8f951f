// Type wrappers.

#include "libclang_abi.h"

HKClangType hk_clang_canonical_type(const HKLibClang *lib, HKClangType type) {
  return lib->getCanonicalType(type);
}

char *hk_clang_type_spelling(const HKLibClang *lib, HKClangType type) {
  return hk_take_string(lib, lib->getTypeSpelling(type));
}

HKClangCursor hk_clang_type_declaration(const HKLibClang *lib, HKClangType type) {
  return lib->getTypeDeclaration(type);
}

HKClangType hk_clang_pointee_type(const HKLibClang *lib, HKClangType type) {
  return lib->getPointeeType(type);
}

HKClangType hk_clang_array_element_type(const HKLibClang *lib, HKClangType type) {
  return lib->getArrayElementType(type);
}

long long hk_clang_array_size(const HKLibClang *lib, HKClangType type) {
  return lib->getArraySize(type);
}

long long hk_clang_type_size(const HKLibClang *lib, HKClangType type) {
  return lib->Type_getSizeOf(type);
}

int hk_clang_type_is_const(const HKLibClang *lib, HKClangType type) {
  return lib->isConstQualifiedType(type) != 0;
}
