#version 450
// A do-nothing compute shader: the loader only checks that it exists.
layout(local_size_x = 64) in;
void main() {}
