#include <openssl/evp.h>
#include <openssl/md5.h>
#include <openssl/sha.h>
