// Everything is in include/pack_system.h; SwiftPM needs one source file in a C target.
