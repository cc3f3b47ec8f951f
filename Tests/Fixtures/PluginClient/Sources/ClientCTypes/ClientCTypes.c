#include "ClientCTypes.h"
