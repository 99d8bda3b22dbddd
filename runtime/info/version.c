/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What hnp-info's listing begins with: which hnp this is, where it looks
 * for its components and files, and the libraries it runs on, in the
 * parsable form ompi_info's scripts know ("package:", "<project>:version:").
 */
#include "config.h"

#include <event2/event.h>
#include <sodium.h>
#include <stdio.h>

#include "hnp_mca.h"
#include "info.h"

void hnp_info_print_version(bool parsable)
{
    if (parsable) {
        printf("package:%s %s\n", PACKAGE_NAME, PACKAGE_VERSION);
        printf("hnp:version:full:%s\n", PACKAGE_VERSION);
        printf("hnp:version:component-abi:%u\n", HNP_MCA_ABI_VERSION);
        printf("path:components:%s\n", HNP_COMPONENTDIR);
        printf("path:sysconfdir:%s\n", HNP_SYSCONFDIR);
        printf("libevent:version:full:%s\n", event_get_version());
        printf("libsodium:version:full:%s\n", sodium_version_string());
        return;
    }
    printf("Package: %s %s (component ABI %u)\n", PACKAGE_NAME,
           PACKAGE_VERSION, HNP_MCA_ABI_VERSION);
    printf("  components installed in %s; system parameters in %s\n",
           HNP_COMPONENTDIR, HNP_SYSCONFDIR "/hnp-mca-params.conf");
    printf("  libevent %s, libsodium %s\n\n", event_get_version(),
           sodium_version_string());
}
