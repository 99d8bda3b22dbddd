/* SPDX-License-Identifier: BSD-3-Clause */
/* The `pmix` pmi component: descriptor and parameters. */
#include "config.h"

#include "hnp_errors.h"
#include "hnp_log.h"
#include "pmi_pmix_internal.h"

/* Beside `simple` (PMI-1/2), both active: the priority orders them only. */
#define PMI_PMIX_PRIORITY 40

pmi_pmix_params_t pmi_pmix_params = {
    .priority = PMI_PMIX_PRIORITY,
    .share_topology = true,
    .call_timeout = 10.0,
    .hello_timeout = 10.0,
    .connect_cards_wait = 0.5,
    .spawn_failure_ends_job = true,
    .store_meta = 256 * 1024,
    .store_data = 1024 * 1024,
};

hnp_log_stream_t *pmi_pmix_log(void)
{
    return hnp_log_stream("pmi");
}

static int pmix_register_params(const hnp_mca_component_t *self,
                                hnp_params_t *params)
{
    const hnp_param_desc_t descs[] = {
        {
            .framework = "pmi", .component = "pmix", .name = "priority",
            .type = HNP_PARAM_INT, .default_value = "40",
            .help = "Priority of the PMIx server (Open MPI) among the pmi "
                    "components: every active one serves each rank, the "
                    "priority only orders them.",
            .level = 6, .storage = &pmi_pmix_params.priority,
        },
        {
            .framework = "pmi", .component = "pmix",
            .name = "share_topology", .type = HNP_PARAM_BOOL,
            .default_value = "true",
            .help = "Load this node's topology without I/O devices once and "
                    "hand it to libpmix. Off, libpmix discovers it itself, "
                    "PCI devices included, for about 12 ms more CPU per "
                    "daemon.",
            .level = 6, .storage = &pmi_pmix_params.share_topology,
        },
        {
            .framework = "pmi", .component = "pmix", .name = "gds",
            .type = HNP_PARAM_STRING, .default_value = "ds21,hash",
            .help = "The data stores of libpmix's server and its clients "
                    "(PMIx's `gds`, a list in order of preference), unless "
                    "PMIX_MCA_gds is set. ds21 (or ds12) keeps the job's "
                    "data once a node, in shared memory the ranks map: a "
                    "rank's memory does not grow with the job; the server "
                    "needs hash beside it for its own data. hash alone "
                    "keeps a private copy of the whole job's data in every "
                    "rank (some 2.4 kB a rank of the job, in each rank). "
                    "Empty: libpmix's choice.",
            .level = 6, .storage = &pmi_pmix_params.gds,
        },
        {
            .framework = "pmi", .component = "pmix",
            .name = "call_timeout", .type = HNP_PARAM_DOUBLE,
            .default_value = "10",
            .help = "Seconds the daemon waits for libpmix to answer a call "
                    "(registering or releasing a job or a rank). Past it "
                    "the call fails (at a job's start the job fails, "
                    "naming the call), and the daemon no longer waits for "
                    "libpmix: its event loop and heartbeat never stop "
                    "behind it.",
            .level = 6, .storage = &pmi_pmix_params.call_timeout,
        },
        {
            .framework = "pmi", .component = "pmix",
            .name = "connect_cards_wait", .type = HNP_PARAM_DOUBLE,
            .default_value = "0.5",
            .help = "A connect across jobs (MPI_Comm_spawn, "
                    "MPI_Comm_connect) carries the endpoint data of every "
                    "process taking part, so that the processes find each "
                    "new peer's on their own node instead of asking the "
                    "peer's node, one peer at a time. Seconds a daemon "
                    "waits for libpmix to give the data of its processes "
                    "(at once for a process that has committed its data); "
                    "the connect goes on without what is late, whose "
                    "peers then ask its node. 0: a connect carries no "
                    "data.",
            .level = 6, .storage = &pmi_pmix_params.connect_cards_wait,
        },
        {
            .framework = "pmi", .component = "pmix",
            .name = "spawn_failure_ends_job", .type = HNP_PARAM_BOOL,
            .default_value = "true",
            .help = "A failed MPI_Comm_spawn of Open MPI 4 in a job of two "
                    "or more ranks ends that job, as an MPI_Abort of the "
                    "spawn's root: Open MPI returns the error to the root "
                    "alone, and the other ranks of a collective spawn wait "
                    "for it forever. 0: the job goes on, for a job whose "
                    "ranks spawn over MPI_COMM_SELF and handle the error "
                    "(a collective spawn that fails then hangs).",
            .level = 5,
            .storage = &pmi_pmix_params.spawn_failure_ends_job,
        },
        {
            .framework = "pmi", .component = "pmix",
            .name = "hello_timeout", .type = HNP_PARAM_DOUBLE,
            .default_value = "10",
            .help = "Seconds libpmix's server waits for the first message "
                    "of a new connection (it reads it blocking, serving no "
                    "one else meanwhile): a silent connection that the "
                    "guard does not shut first (one from a process of the "
                    "node's ranks) holds the server this long at most, and "
                    "a rank that gets no CPU this long between its connect "
                    "and its hello fails in PMIx_Init (on a loaded node 1 s "
                    "was seen to be too short; hundreds of ranks a core, as "
                    "on a simulated cluster, need more). At least 0.001.",
            .level = 6, .storage = &pmi_pmix_params.hello_timeout,
        },
        {
            .framework = "pmi", .component = "pmix",
            .name = "store_meta_segment", .type = HNP_PARAM_SIZE,
            .default_value = "256k",
            .help = "Size of each index segment of the shared job-data "
                    "store (gds ds21/ds12), 24 bytes a rank of the job: "
                    "libpmix allocates each segment whole in memory "
                    "(/dev/shm), once a node and job that has a PMIx "
                    "client, and adds segments as the job needs them "
                    "(libpmix's own default, 4 MB, costs every such node "
                    "4 MB a job however small). At least a page.",
            .level = 6, .storage = &pmi_pmix_params.store_meta,
        },
        {
            .framework = "pmi", .component = "pmix",
            .name = "store_data_segment", .type = HNP_PARAM_SIZE,
            .default_value = "1m",
            .help = "Size of each data segment of the shared job-data "
                    "store (gds ds21/ds12): the job's data and the ranks' "
                    "published data (some 0.5 kB a rank of an Open MPI "
                    "job), allocated whole in memory once a node and job "
                    "that has a PMIx client, more segments as needed "
                    "(libpmix's own default, 4 MB, costs every such node "
                    "4 MB a job). It must hold the largest blob one rank "
                    "publishes. At least a page.",
            .level = 6, .storage = &pmi_pmix_params.store_data,
        },
    };
    char err[256] = "";

    (void)self;
    for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++) {
        int rc = hnp_param_register(params, &descs[i], err, sizeof(err));
        if (rc != HNP_SUCCESS) {
            HNP_ERROR_LOG(pmi_pmix_log(), "pmix: %s", err);
            return rc;
        }
    }
    return HNP_SUCCESS;
}

static int pmix_query(const hnp_mca_component_t *self, const void **module,
                      int *priority)
{
    (void)self;
    *module = &pmi_pmix_module;
    *priority = pmi_pmix_params.priority;
    return HNP_SUCCESS;
}

static const uint32_t pmix_tags[] = { PMI_PMIX_SERVICE_DMODEX, 0 };

HNP_COMPONENT_EXPORT
const hnp_mca_component_t mca_pmi_pmix_component = {
    HNP_MCA_COMPONENT_INIT("pmi", "pmix", HNP_PMI_INTERFACE_VERSION,
                           HNP_MCA_VERSION(1, 0, 0)),
    .register_params = pmix_register_params,
    .query = pmix_query,
    .tags = pmix_tags,
};
