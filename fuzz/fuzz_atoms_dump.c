/* libFuzzer: the dump reader on arbitrary bytes must fail cleanly or give
 * frames whose tables are consistent. */
#include "fuzz_atoms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_atoms(data, size, SK_ATOMS_DUMP, "fuzz.dump");
}
