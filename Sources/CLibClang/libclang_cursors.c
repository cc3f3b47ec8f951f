// Cursor wrappers, including child and field enumeration (libclang's visitor callbacks stay in C).

#include "libclang_abi.h"

#include <stdlib.h>

typedef struct {
  HKClangCursor *items;
  size_t count;
  size_t capacity;
} HKCursorList;

static void hk_cursor_list_append(HKCursorList *list, HKClangCursor cursor) {
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? list->capacity * 2 : 16;
    HKClangCursor *items = realloc(list->items, capacity * sizeof(HKClangCursor));
    if (!items) {
      return; // Out of memory: the list stays short rather than crashing.
    }
    list->items = items;
    list->capacity = capacity;
  }
  list->items[list->count++] = cursor;
}

static int hk_collect_child(HKClangCursor cursor, HKClangCursor parent, void *client_data) {
  (void)parent;
  hk_cursor_list_append((HKCursorList *)client_data, cursor);
  return HK_CX_CONTINUE;
}

static int hk_collect_field(HKClangCursor cursor, void *client_data) {
  hk_cursor_list_append((HKCursorList *)client_data, cursor);
  return HK_CX_CONTINUE;
}

HKClangCursor hk_clang_translation_unit_cursor(const HKLibClang *lib, void *unit) {
  return lib->getTranslationUnitCursor(unit);
}

size_t hk_clang_children(const HKLibClang *lib, HKClangCursor parent, HKClangCursor **out_children) {
  HKCursorList list = {NULL, 0, 0};
  lib->visitChildren(parent, hk_collect_child, &list);
  *out_children = list.items;
  return list.count;
}

size_t hk_clang_record_fields(const HKLibClang *lib, HKClangType record, HKClangCursor **out_fields) {
  HKCursorList list = {NULL, 0, 0};
  lib->Type_visitFields(record, hk_collect_field, &list);
  *out_fields = list.items;
  return list.count;
}

int hk_clang_cursor_kind(const HKLibClang *lib, HKClangCursor cursor) {
  return lib->getCursorKind(cursor);
}

char *hk_clang_cursor_spelling(const HKLibClang *lib, HKClangCursor cursor) {
  return hk_take_string(lib, lib->getCursorSpelling(cursor));
}

HKClangType hk_clang_cursor_type(const HKLibClang *lib, HKClangCursor cursor) {
  return lib->getCursorType(cursor);
}

HKClangLocation hk_clang_cursor_location(const HKLibClang *lib, HKClangCursor cursor) {
  return hk_resolve_location(lib, lib->getCursorLocation(cursor));
}

HKClangCursor hk_clang_cursor_definition(const HKLibClang *lib, HKClangCursor cursor) {
  return lib->getCursorDefinition(cursor);
}

int hk_clang_cursor_is_null(const HKLibClang *lib, HKClangCursor cursor) {
  return lib->Cursor_isNull(cursor);
}

int hk_clang_cursors_equal(const HKLibClang *lib, HKClangCursor a, HKClangCursor b) {
  return lib->equalCursors(a, b) != 0;
}

unsigned hk_clang_cursor_hash(const HKLibClang *lib, HKClangCursor cursor) {
  return lib->hashCursor(cursor);
}

HKClangType hk_clang_typedef_underlying_type(const HKLibClang *lib, HKClangCursor cursor) {
  return lib->getTypedefDeclUnderlyingType(cursor);
}

HKClangType hk_clang_enum_integer_type(const HKLibClang *lib, HKClangCursor cursor) {
  return lib->getEnumDeclIntegerType(cursor);
}

long long hk_clang_enum_constant_value(const HKLibClang *lib, HKClangCursor cursor) {
  return lib->getEnumConstantDeclValue(cursor);
}

unsigned long long hk_clang_enum_constant_unsigned_value(const HKLibClang *lib,
                                                         HKClangCursor cursor) {
  return lib->getEnumConstantDeclUnsignedValue(cursor);
}

int hk_clang_field_bit_width(const HKLibClang *lib, HKClangCursor cursor) {
  if (!lib->Cursor_isBitField(cursor)) {
    return -1;
  }
  return lib->getFieldDeclBitWidth(cursor);
}
