// Every function is inline, in the headers of include/; a C target needs one source file.
#include "ChronicleFutex.h"
#include "ChronicleCRC32C.h"
#include "ChronicleMemory.h"
#include "ChronicleRetain.h"
