"""Contains all the data models used in inputs/outputs"""

from .admissible_view import AdmissibleView
from .admission_out import AdmissionOut
from .admission_out_decision import AdmissionOutDecision
from .admission_out_details import AdmissionOutDetails
from .admission_request import AdmissionRequest
from .admission_request_operation import AdmissionRequestOperation
from .admission_response import AdmissionResponse
from .admission_review_in import AdmissionReviewIn
from .admission_review_out import AdmissionReviewOut
from .admission_status import AdmissionStatus
from .adoption import Adoption
from .adoption_likelihood_ratio import AdoptionLikelihoodRatio
from .adoption_mean_factor import AdoptionMeanFactor
from .advise import Advise
from .advise_objective_type_0 import AdviseObjectiveType0
from .arrival_in import ArrivalIn
from .batch_arrival import BatchArrival
from .batch_departure import BatchDeparture
from .batch_gang import BatchGang
from .batch_in import BatchIn
from .batch_out import BatchOut
from .best_fit_policy import BestFitPolicy
from .calibrated_anchor import CalibratedAnchor
from .calibration_progress import CalibrationProgress
from .calibration_progress_status import CalibrationProgressStatus
from .calibration_ref import CalibrationRef
from .calibration_ref_inputs import CalibrationRefInputs
from .calibration_scale import CalibrationScale
from .cap_estimator_params import CapEstimatorParams
from .closed_loop_view import ClosedLoopView
from .cluster_create import ClusterCreate
from .cluster_out import ClusterOut
from .cluster_out_job_types_type_0_item import ClusterOutJobTypesType0Item
from .cluster_out_policy import ClusterOutPolicy
from .cluster_out_server_pools_type_0_item import ClusterOutServerPoolsType0Item
from .cluster_out_tenants_type_0_item import ClusterOutTenantsType0Item
from .cluster_page import ClusterPage
from .cluster_preview import ClusterPreview
from .cluster_preview_job_types_type_0_item import ClusterPreviewJobTypesType0Item
from .cluster_preview_policy import ClusterPreviewPolicy
from .cluster_preview_server_pools_type_0_item import ClusterPreviewServerPoolsType0Item
from .cluster_preview_tenants_type_0_item import ClusterPreviewTenantsType0Item
from .cluster_update import ClusterUpdate
from .configuration_search import ConfigurationSearch
from .container import Container
from .decision_summary import DecisionSummary
from .decision_summary_decisions import DecisionSummaryDecisions
from .decision_summary_reasons import DecisionSummaryReasons
from .departure_in import DepartureIn
from .deployment import Deployment
from .deployment_in import DeploymentIn
from .deployment_meta import DeploymentMeta
from .deployment_prior import DeploymentPrior
from .deployment_spec import DeploymentSpec
from .deployment_statistics import DeploymentStatistics
from .deployment_view import DeploymentView
from .deployment_view_expected_cores_type_0 import DeploymentViewExpectedCoresType0
from .deployment_view_posterior import DeploymentViewPosterior
from .deployment_view_variance_type_0 import DeploymentViewVarianceType0
from .dra_configuration import DraConfiguration
from .dra_configuration_configuration import DraConfigurationConfiguration
from .dra_policy import DraPolicy
from .dra_policy_migrations_type_1 import DraPolicyMigrationsType1
from .dra_policy_preemption_type_1 import DraPolicyPreemptionType1
from .dra_state import DraState
from .dra_state_free_slots_in_accept_group import DraStateFreeSlotsInAcceptGroup
from .dra_state_jobs_per_type import DraStateJobsPerType
from .dra_state_migrations import DraStateMigrations
from .dra_state_preemption import DraStatePreemption
from .event_page import EventPage
from .extender_args import ExtenderArgs
from .extender_binding_args import ExtenderBindingArgs
from .extender_binding_result import ExtenderBindingResult
from .extender_filter_result import ExtenderFilterResult
from .extender_filter_result_failedandunresolvablenodes import ExtenderFilterResultFailedandunresolvablenodes
from .extender_filter_result_failednodes import ExtenderFilterResultFailednodes
from .failed_member import FailedMember
from .first_fit_policy import FirstFitPolicy
from .fit_state import FitState
from .fit_state_feasible_servers_per_type import FitStateFeasibleServersPerType
from .fit_state_jobs_per_type import FitStateJobsPerType
from .fit_state_policy import FitStatePolicy
from .ftl_policy import FtlPolicy
from .gamma_priors import GammaPriors
from .gamma_view import GammaView
from .gang_in import GangIn
from .gang_member import GangMember
from .gang_out import GangOut
from .gang_out_decision import GangOutDecision
from .gang_out_details import GangOutDetails
from .gaussian_cap import GaussianCap
from .gpa_refresh import GpaRefresh
from .gpa_refresh_y_hat_in_use import GpaRefreshYHatInUse
from .greedy_queue_policy import GreedyQueuePolicy
from .greedy_queue_policy_clock import GreedyQueuePolicyClock
from .greedy_queue_policy_kind import GreedyQueuePolicyKind
from .greedy_queue_policy_order import GreedyQueuePolicyOrder
from .greedy_queue_state import GreedyQueueState
from .greedy_queue_state_policy import GreedyQueueStatePolicy
from .greedy_queue_state_queues import GreedyQueueStateQueues
from .greedy_queue_state_running import GreedyQueueStateRunning
from .greedy_queue_state_waiting_for_quota_type_0 import GreedyQueueStateWaitingForQuotaType0
from .grid_view import GridView
from .group_version_resource import GroupVersionResource
from .growth_calibration_view import GrowthCalibrationView
from .growth_ladder_view import GrowthLadderView
from .growth_step import GrowthStep
from .held_job import HeldJob
from .held_job_status import HeldJobStatus
from .held_out_check import HeldOutCheck
from .held_out_try import HeldOutTry
from .hindsight import Hindsight
from .hindsight_resource import HindsightResource
from .history_item import HistoryItem
from .history_item_demand import HistoryItemDemand
from .history_item_next_reservation import HistoryItemNextReservation
from .history_item_reserved import HistoryItemReserved
from .history_item_violated import HistoryItemViolated
from .history_page import HistoryPage
from .host_priority import HostPriority
from .job_out import JobOut
from .job_out_reason_type_0 import JobOutReasonType0
from .job_out_status import JobOutStatus
from .job_page import JobPage
from .job_type_in import JobTypeIn
from .job_type_in_demand import JobTypeInDemand
from .key_create import KeyCreate
from .key_create_scopes_item import KeyCreateScopesItem
from .key_created import KeyCreated
from .key_created_scopes_item import KeyCreatedScopesItem
from .key_list import KeyList
from .key_out import KeyOut
from .key_out_scopes_item import KeyOutScopesItem
from .learner_view import LearnerView
from .learner_view_cautious_phase_type_0 import LearnerViewCautiousPhaseType0
from .learner_view_last_likelihood_ratio import LearnerViewLastLikelihoodRatio
from .list_events_order import ListEventsOrder
from .livez_response_livez import LivezResponseLivez
from .lock_waits_out import LockWaitsOut
from .logged_event import LoggedEvent
from .logged_event_request import LoggedEventRequest
from .logged_event_response import LoggedEventResponse
from .migrate_answer import MigrateAnswer
from .migrate_answer_reason import MigrateAnswerReason
from .migration_budget import MigrationBudget
from .migration_budget_clock import MigrationBudgetClock
from .migration_budget_per import MigrationBudgetPer
from .migration_out import MigrationOut
from .migration_tally import MigrationTally
from .moment_cluster_create import MomentClusterCreate
from .moment_policy import MomentPolicy
from .moment_policy_kind import MomentPolicyKind
from .moment_state import MomentState
from .moment_state_overflow_bound_per_horizon_type_0 import MomentStateOverflowBoundPerHorizonType0
from .moment_state_peak_expected_cores import MomentStatePeakExpectedCores
from .moment_state_policy import MomentStatePolicy
from .moment_state_threshold_derivation_type_0 import MomentStateThresholdDerivationType0
from .no_params import NoParams
from .node import Node
from .node_list import NodeList
from .node_meta import NodeMeta
from .observation_in import ObservationIn
from .observation_in_demand import ObservationInDemand
from .observation_out import ObservationOut
from .observation_out_demand import ObservationOutDemand
from .observation_out_details import ObservationOutDetails
from .observation_out_next_reservation import ObservationOutNextReservation
from .observation_out_queue import ObservationOutQueue
from .observation_out_reserved import ObservationOutReserved
from .observation_out_violated import ObservationOutViolated
from .observation_out_violation_rate import ObservationOutViolationRate
from .outgrowing_row import OutgrowingRow
from .outgrowing_row_reason import OutgrowingRowReason
from .outgrowing_view import OutgrowingView
from .percentile_policy import PercentilePolicy
from .percentile_policy_params import PercentilePolicyParams
from .placed_member import PlacedMember
from .placement_out import PlacementOut
from .placement_out_decision import PlacementOutDecision
from .placement_out_details import PlacementOutDetails
from .pod import Pod
from .pod_meta import PodMeta
from .pod_spec import PodSpec
from .pod_spec_overhead_type_0 import PodSpecOverheadType0
from .pod_template_spec import PodTemplateSpec
from .posterior_view import PosteriorView
from .power_of_d_policy import PowerOfDPolicy
from .power_of_d_state import PowerOfDState
from .power_of_d_state_jobs_per_type import PowerOfDStateJobsPerType
from .preemption_out import PreemptionOut
from .prior_observations import PriorObservations
from .problem import Problem
from .problem_errors_item import ProblemErrorsItem
from .quantile_tracking_params import QuantileTrackingParams
from .quantile_tracking_policy import QuantileTrackingPolicy
from .queue_arrival_out import QueueArrivalOut
from .queue_arrival_out_decision import QueueArrivalOutDecision
from .queue_arrival_out_details_type_0 import QueueArrivalOutDetailsType0
from .queue_clock_view import QueueClockView
from .queue_clock_view_mode import QueueClockViewMode
from .queue_gang_out import QueueGangOut
from .queue_gang_out_decision import QueueGangOutDecision
from .queue_gang_out_details import QueueGangOutDetails
from .queue_gang_out_members_item import QueueGangOutMembersItem
from .queue_gang_out_reason import QueueGangOutReason
from .queue_release_out import QueueReleaseOut
from .queue_release_out_decision import QueueReleaseOutDecision
from .quotas_in import QuotasIn
from .quotas_out import QuotasOut
from .quotas_out_started_type_0_item import QuotasOutStartedType0Item
from .quotas_out_tenants_item import QuotasOutTenantsItem
from .reconfiguration_out import ReconfigurationOut
from .reconfiguration_out_configuration import ReconfigurationOutConfiguration
from .refresh_band import RefreshBand
from .refresh_every import RefreshEvery
from .release_out import ReleaseOut
from .release_out_details import ReleaseOutDetails
from .reservation_create import ReservationCreate
from .reservation_create_initial_type_0 import ReservationCreateInitialType0
from .reservation_exponent import ReservationExponent
from .reservation_out import ReservationOut
from .reservation_out_initial_type_0 import ReservationOutInitialType0
from .reservation_out_policy import ReservationOutPolicy
from .reservation_out_resources_item import ReservationOutResourcesItem
from .reservation_out_state_type_0 import ReservationOutStateType0
from .reservation_page import ReservationPage
from .reservation_slots import ReservationSlots
from .resource_in import ResourceIn
from .resource_requirements import ResourceRequirements
from .resource_requirements_limits_type_0 import ResourceRequirementsLimitsType0
from .resource_requirements_requests_type_0 import ResourceRequirementsRequestsType0
from .rms_policy import RmsPolicy
from .rms_policy_clock import RmsPolicyClock
from .rms_policy_clock_rate_type_1 import RmsPolicyClockRateType1
from .rms_policy_max_jobs_rule import RmsPolicyMaxJobsRule
from .rms_policy_mu_type_1 import RmsPolicyMuType1
from .rms_policy_routing import RmsPolicyRouting
from .rms_policy_sampling import RmsPolicySampling
from .rms_state import RmsState
from .rms_state_clock_rates import RmsStateClockRates
from .rms_state_dummies import RmsStateDummies
from .rms_state_queues import RmsStateQueues
from .rms_state_running import RmsStateRunning
from .rms_state_waiting_for_quota_type_0 import RmsStateWaitingForQuotaType0
from .rms_state_weights import RmsStateWeights
from .rms_variant import RmsVariant
from .scale_event import ScaleEvent
from .scale_in_out import ScaleInOut
from .scale_out_out import ScaleOutOut
from .scale_out_out_decision import ScaleOutOutDecision
from .scale_out_out_details_type_0 import ScaleOutOutDetailsType0
from .server_page import ServerPage
from .server_pool_in import ServerPoolIn
from .server_pool_in_capacity import ServerPoolInCapacity
from .server_summary import ServerSummary
from .server_summary_configuration_type_0 import ServerSummaryConfigurationType0
from .server_summary_group_type_0 import ServerSummaryGroupType0
from .server_summary_jobs_per_type import ServerSummaryJobsPerType
from .server_view import ServerView
from .server_view_capacity import ServerViewCapacity
from .server_view_configuration_type_0 import ServerViewConfigurationType0
from .server_view_group_type_0 import ServerViewGroupType0
from .server_view_jobs_per_type import ServerViewJobsPerType
from .server_view_used import ServerViewUsed
from .start_forecast import StartForecast
from .started_job import StartedJob
from .tenancy_view import TenancyView
from .tenant_in import TenantIn
from .tenant_in_borrowing_limit_type_0 import TenantInBorrowingLimitType0
from .tenant_in_lending_limit_type_0 import TenantInLendingLimitType0
from .tenant_in_nominal import TenantInNominal
from .tenant_preemption import TenantPreemption
from .tenant_view import TenantView
from .tenant_view_borrowed import TenantViewBorrowed
from .tenant_view_nominal import TenantViewNominal
from .tenant_view_usage import TenantViewUsage
from .thor_policy import ThorPolicy
from .thor_policy_params import ThorPolicyParams
from .thor_policy_params_caps_type_0 import ThorPolicyParamsCapsType0
from .threshold_derivation import ThresholdDerivation
from .threshold_derivation_interim_type_0 import ThresholdDerivationInterimType0
from .threshold_derivation_source import ThresholdDerivationSource
from .threshold_derivation_status_type_0 import ThresholdDerivationStatusType0
from .tick_in import TickIn
from .tick_out import TickOut
from .tick_out_decision import TickOutDecision
from .tracking_estimator_params import TrackingEstimatorParams
from .typical_deployment_view import TypicalDeploymentView
from .typical_deployment_view_decision import TypicalDeploymentViewDecision
from .what_if_create import WhatIfCreate
from .what_if_create_policy_type_0 import WhatIfCreatePolicyType0
from .what_if_page import WhatIfPage
from .what_if_progress import WhatIfProgress
from .what_if_run import WhatIfRun
from .what_if_run_request import WhatIfRunRequest
from .what_if_run_result_type_0 import WhatIfRunResultType0
from .what_if_run_status import WhatIfRunStatus
from .window import Window

__all__ = (
    "AdmissibleView",
    "AdmissionOut",
    "AdmissionOutDecision",
    "AdmissionOutDetails",
    "AdmissionRequest",
    "AdmissionRequestOperation",
    "AdmissionResponse",
    "AdmissionReviewIn",
    "AdmissionReviewOut",
    "AdmissionStatus",
    "Adoption",
    "AdoptionLikelihoodRatio",
    "AdoptionMeanFactor",
    "Advise",
    "AdviseObjectiveType0",
    "ArrivalIn",
    "BatchArrival",
    "BatchDeparture",
    "BatchGang",
    "BatchIn",
    "BatchOut",
    "BestFitPolicy",
    "CalibratedAnchor",
    "CalibrationProgress",
    "CalibrationProgressStatus",
    "CalibrationRef",
    "CalibrationRefInputs",
    "CalibrationScale",
    "CapEstimatorParams",
    "ClosedLoopView",
    "ClusterCreate",
    "ClusterOut",
    "ClusterOutJobTypesType0Item",
    "ClusterOutPolicy",
    "ClusterOutServerPoolsType0Item",
    "ClusterOutTenantsType0Item",
    "ClusterPage",
    "ClusterPreview",
    "ClusterPreviewJobTypesType0Item",
    "ClusterPreviewPolicy",
    "ClusterPreviewServerPoolsType0Item",
    "ClusterPreviewTenantsType0Item",
    "ClusterUpdate",
    "ConfigurationSearch",
    "Container",
    "DecisionSummary",
    "DecisionSummaryDecisions",
    "DecisionSummaryReasons",
    "DepartureIn",
    "Deployment",
    "DeploymentIn",
    "DeploymentMeta",
    "DeploymentPrior",
    "DeploymentSpec",
    "DeploymentStatistics",
    "DeploymentView",
    "DeploymentViewExpectedCoresType0",
    "DeploymentViewPosterior",
    "DeploymentViewVarianceType0",
    "DraConfiguration",
    "DraConfigurationConfiguration",
    "DraPolicy",
    "DraPolicyMigrationsType1",
    "DraPolicyPreemptionType1",
    "DraState",
    "DraStateFreeSlotsInAcceptGroup",
    "DraStateJobsPerType",
    "DraStateMigrations",
    "DraStatePreemption",
    "EventPage",
    "ExtenderArgs",
    "ExtenderBindingArgs",
    "ExtenderBindingResult",
    "ExtenderFilterResult",
    "ExtenderFilterResultFailedandunresolvablenodes",
    "ExtenderFilterResultFailednodes",
    "FailedMember",
    "FirstFitPolicy",
    "FitState",
    "FitStateFeasibleServersPerType",
    "FitStateJobsPerType",
    "FitStatePolicy",
    "FtlPolicy",
    "GammaPriors",
    "GammaView",
    "GangIn",
    "GangMember",
    "GangOut",
    "GangOutDecision",
    "GangOutDetails",
    "GaussianCap",
    "GpaRefresh",
    "GpaRefreshYHatInUse",
    "GreedyQueuePolicy",
    "GreedyQueuePolicyClock",
    "GreedyQueuePolicyKind",
    "GreedyQueuePolicyOrder",
    "GreedyQueueState",
    "GreedyQueueStatePolicy",
    "GreedyQueueStateQueues",
    "GreedyQueueStateRunning",
    "GreedyQueueStateWaitingForQuotaType0",
    "GridView",
    "GroupVersionResource",
    "GrowthCalibrationView",
    "GrowthLadderView",
    "GrowthStep",
    "HeldJob",
    "HeldJobStatus",
    "HeldOutCheck",
    "HeldOutTry",
    "Hindsight",
    "HindsightResource",
    "HistoryItem",
    "HistoryItemDemand",
    "HistoryItemNextReservation",
    "HistoryItemReserved",
    "HistoryItemViolated",
    "HistoryPage",
    "HostPriority",
    "JobOut",
    "JobOutReasonType0",
    "JobOutStatus",
    "JobPage",
    "JobTypeIn",
    "JobTypeInDemand",
    "KeyCreate",
    "KeyCreated",
    "KeyCreatedScopesItem",
    "KeyCreateScopesItem",
    "KeyList",
    "KeyOut",
    "KeyOutScopesItem",
    "LearnerView",
    "LearnerViewCautiousPhaseType0",
    "LearnerViewLastLikelihoodRatio",
    "ListEventsOrder",
    "LivezResponseLivez",
    "LockWaitsOut",
    "LoggedEvent",
    "LoggedEventRequest",
    "LoggedEventResponse",
    "MigrateAnswer",
    "MigrateAnswerReason",
    "MigrationBudget",
    "MigrationBudgetClock",
    "MigrationBudgetPer",
    "MigrationOut",
    "MigrationTally",
    "MomentClusterCreate",
    "MomentPolicy",
    "MomentPolicyKind",
    "MomentState",
    "MomentStateOverflowBoundPerHorizonType0",
    "MomentStatePeakExpectedCores",
    "MomentStatePolicy",
    "MomentStateThresholdDerivationType0",
    "Node",
    "NodeList",
    "NodeMeta",
    "NoParams",
    "ObservationIn",
    "ObservationInDemand",
    "ObservationOut",
    "ObservationOutDemand",
    "ObservationOutDetails",
    "ObservationOutNextReservation",
    "ObservationOutQueue",
    "ObservationOutReserved",
    "ObservationOutViolated",
    "ObservationOutViolationRate",
    "OutgrowingRow",
    "OutgrowingRowReason",
    "OutgrowingView",
    "PercentilePolicy",
    "PercentilePolicyParams",
    "PlacedMember",
    "PlacementOut",
    "PlacementOutDecision",
    "PlacementOutDetails",
    "Pod",
    "PodMeta",
    "PodSpec",
    "PodSpecOverheadType0",
    "PodTemplateSpec",
    "PosteriorView",
    "PowerOfDPolicy",
    "PowerOfDState",
    "PowerOfDStateJobsPerType",
    "PreemptionOut",
    "PriorObservations",
    "Problem",
    "ProblemErrorsItem",
    "QuantileTrackingParams",
    "QuantileTrackingPolicy",
    "QueueArrivalOut",
    "QueueArrivalOutDecision",
    "QueueArrivalOutDetailsType0",
    "QueueClockView",
    "QueueClockViewMode",
    "QueueGangOut",
    "QueueGangOutDecision",
    "QueueGangOutDetails",
    "QueueGangOutMembersItem",
    "QueueGangOutReason",
    "QueueReleaseOut",
    "QueueReleaseOutDecision",
    "QuotasIn",
    "QuotasOut",
    "QuotasOutStartedType0Item",
    "QuotasOutTenantsItem",
    "ReconfigurationOut",
    "ReconfigurationOutConfiguration",
    "RefreshBand",
    "RefreshEvery",
    "ReleaseOut",
    "ReleaseOutDetails",
    "ReservationCreate",
    "ReservationCreateInitialType0",
    "ReservationExponent",
    "ReservationOut",
    "ReservationOutInitialType0",
    "ReservationOutPolicy",
    "ReservationOutResourcesItem",
    "ReservationOutStateType0",
    "ReservationPage",
    "ReservationSlots",
    "ResourceIn",
    "ResourceRequirements",
    "ResourceRequirementsLimitsType0",
    "ResourceRequirementsRequestsType0",
    "RmsPolicy",
    "RmsPolicyClock",
    "RmsPolicyClockRateType1",
    "RmsPolicyMaxJobsRule",
    "RmsPolicyMuType1",
    "RmsPolicyRouting",
    "RmsPolicySampling",
    "RmsState",
    "RmsStateClockRates",
    "RmsStateDummies",
    "RmsStateQueues",
    "RmsStateRunning",
    "RmsStateWaitingForQuotaType0",
    "RmsStateWeights",
    "RmsVariant",
    "ScaleEvent",
    "ScaleInOut",
    "ScaleOutOut",
    "ScaleOutOutDecision",
    "ScaleOutOutDetailsType0",
    "ServerPage",
    "ServerPoolIn",
    "ServerPoolInCapacity",
    "ServerSummary",
    "ServerSummaryConfigurationType0",
    "ServerSummaryGroupType0",
    "ServerSummaryJobsPerType",
    "ServerView",
    "ServerViewCapacity",
    "ServerViewConfigurationType0",
    "ServerViewGroupType0",
    "ServerViewJobsPerType",
    "ServerViewUsed",
    "StartedJob",
    "StartForecast",
    "TenancyView",
    "TenantIn",
    "TenantInBorrowingLimitType0",
    "TenantInLendingLimitType0",
    "TenantInNominal",
    "TenantPreemption",
    "TenantView",
    "TenantViewBorrowed",
    "TenantViewNominal",
    "TenantViewUsage",
    "ThorPolicy",
    "ThorPolicyParams",
    "ThorPolicyParamsCapsType0",
    "ThresholdDerivation",
    "ThresholdDerivationInterimType0",
    "ThresholdDerivationSource",
    "ThresholdDerivationStatusType0",
    "TickIn",
    "TickOut",
    "TickOutDecision",
    "TrackingEstimatorParams",
    "TypicalDeploymentView",
    "TypicalDeploymentViewDecision",
    "WhatIfCreate",
    "WhatIfCreatePolicyType0",
    "WhatIfPage",
    "WhatIfProgress",
    "WhatIfRun",
    "WhatIfRunRequest",
    "WhatIfRunResultType0",
    "WhatIfRunStatus",
    "Window",
)
