#include "CFixtureTypes.h"

int32_t hk_fixture_version(void) { return 1; }
