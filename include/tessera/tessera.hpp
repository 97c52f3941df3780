// Tessera: everything public, for applications. Library code includes the narrow header it needs.
#pragma once

#include "tessera/core/array.hpp"
#include "tessera/core/concepts.hpp"
#include "tessera/core/config.hpp"
#include "tessera/core/int_tuple.hpp"
#include "tessera/core/integral.hpp"
#include "tessera/core/layout.hpp"
#include "tessera/core/layout_algebra.hpp"
#include "tessera/core/numeric_types.hpp"
#include "tessera/core/print.hpp"
#include "tessera/core/status.hpp"
#include "tessera/core/swizzle.hpp"
#include "tessera/core/tuple.hpp"
