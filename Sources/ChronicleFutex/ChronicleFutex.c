// The wrappers are inline, in include/ChronicleFutex.h; a C target needs one source file.
#include "ChronicleFutex.h"
