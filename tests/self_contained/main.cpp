// The generated translation units (one per public header) are linked into this program; building
// it is the test. Running it only confirms the link produced a working executable.
int main() { return 0; }
