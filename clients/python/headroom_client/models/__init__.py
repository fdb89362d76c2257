"""Contains all the data models used in inputs/outputs"""

from .admission_out import AdmissionOut
from .admission_out_decision import AdmissionOutDecision
from .admission_out_details import AdmissionOutDetails
from .admission_request import AdmissionRequest
from .admission_request_object_type_0 import AdmissionRequestObjectType0
from .admission_request_old_object_type_0 import AdmissionRequestOldObjectType0
from .admission_request_operation import AdmissionRequestOperation
from .admission_response import AdmissionResponse
from .admission_review_in import AdmissionReviewIn
from .admission_review_out import AdmissionReviewOut
from .admission_status import AdmissionStatus
from .arrival_in import ArrivalIn
from .batch_arrival import BatchArrival
from .batch_departure import BatchDeparture
from .batch_in import BatchIn
from .batch_out import BatchOut
from .best_fit_policy import BestFitPolicy
from .cluster_create import ClusterCreate
from .cluster_out import ClusterOut
from .cluster_out_job_types_type_0_item import ClusterOutJobTypesType0Item
from .cluster_out_policy import ClusterOutPolicy
from .cluster_out_server_pools_type_0_item import ClusterOutServerPoolsType0Item
from .cluster_page import ClusterPage
from .cluster_update import ClusterUpdate
from .decision_summary import DecisionSummary
from .decision_summary_decisions import DecisionSummaryDecisions
from .decision_summary_reasons import DecisionSummaryReasons
from .departure_in import DepartureIn
from .deployment_in import DeploymentIn
from .deployment_prior import DeploymentPrior
from .dra_policy import DraPolicy
from .dra_policy_migrations_type_1 import DraPolicyMigrationsType1
from .dra_policy_preemption_type_1 import DraPolicyPreemptionType1
from .event_page import EventPage
from .extender_args import ExtenderArgs
from .extender_args_pod import ExtenderArgsPod
from .extender_binding_args import ExtenderBindingArgs
from .extender_binding_result import ExtenderBindingResult
from .extender_filter_result import ExtenderFilterResult
from .extender_filter_result_failedandunresolvablenodes import ExtenderFilterResultFailedandunresolvablenodes
from .extender_filter_result_failednodes import ExtenderFilterResultFailednodes
from .first_fit_policy import FirstFitPolicy
from .gamma_priors import GammaPriors
from .get_cluster_state_response_getclusterstate import GetClusterStateResponseGetclusterstate
from .get_deployment_response_getdeployment import GetDeploymentResponseGetdeployment
from .get_server_response_getserver import GetServerResponseGetserver
from .greedy_queue_policy import GreedyQueuePolicy
from .greedy_queue_policy_clock import GreedyQueuePolicyClock
from .greedy_queue_policy_kind import GreedyQueuePolicyKind
from .greedy_queue_policy_order import GreedyQueuePolicyOrder
from .group_version_resource import GroupVersionResource
from .growth_step import GrowthStep
from .growth_step_anchors_type_0_item import GrowthStepAnchorsType0Item
from .held_job import HeldJob
from .held_job_status import HeldJobStatus
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
from .moment_cluster_create import MomentClusterCreate
from .moment_policy import MomentPolicy
from .moment_policy_kind import MomentPolicyKind
from .node_list import NodeList
from .node_list_items_item import NodeListItemsItem
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
from .placement_out import PlacementOut
from .placement_out_decision import PlacementOutDecision
from .placement_out_details import PlacementOutDetails
from .power_of_d_policy import PowerOfDPolicy
from .preemption_out import PreemptionOut
from .prior_observations import PriorObservations
from .problem import Problem
from .problem_errors_item import ProblemErrorsItem
from .queue_arrival_out import QueueArrivalOut
from .queue_arrival_out_decision import QueueArrivalOutDecision
from .queue_release_out import QueueReleaseOut
from .queue_release_out_decision import QueueReleaseOutDecision
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
from .reservation_policy import ReservationPolicy
from .reservation_policy_kind import ReservationPolicyKind
from .reservation_policy_params import ReservationPolicyParams
from .reservation_slots import ReservationSlots
from .resource_in import ResourceIn
from .rms_policy import RmsPolicy
from .rms_policy_clock import RmsPolicyClock
from .rms_policy_clock_rate_type_1 import RmsPolicyClockRateType1
from .rms_policy_max_jobs_rule import RmsPolicyMaxJobsRule
from .rms_policy_mu_type_1 import RmsPolicyMuType1
from .rms_policy_routing import RmsPolicyRouting
from .rms_policy_sampling import RmsPolicySampling
from .scale_event import ScaleEvent
from .scale_in_out import ScaleInOut
from .scale_out_out import ScaleOutOut
from .scale_out_out_decision import ScaleOutOutDecision
from .server_page import ServerPage
from .server_pool_in import ServerPoolIn
from .server_pool_in_capacity import ServerPoolInCapacity
from .server_summary import ServerSummary
from .server_summary_configuration_type_0 import ServerSummaryConfigurationType0
from .server_summary_group_type_0 import ServerSummaryGroupType0
from .server_summary_jobs_per_type import ServerSummaryJobsPerType
from .started_job import StartedJob
from .threshold_derivation import ThresholdDerivation
from .threshold_derivation_anchors_type_0_item import ThresholdDerivationAnchorsType0Item
from .threshold_derivation_scale_type_0 import ThresholdDerivationScaleType0
from .threshold_derivation_source import ThresholdDerivationSource
from .tick_in import TickIn
from .tick_out import TickOut
from .tick_out_decision import TickOutDecision

__all__ = (
    "AdmissionOut",
    "AdmissionOutDecision",
    "AdmissionOutDetails",
    "AdmissionRequest",
    "AdmissionRequestObjectType0",
    "AdmissionRequestOldObjectType0",
    "AdmissionRequestOperation",
    "AdmissionResponse",
    "AdmissionReviewIn",
    "AdmissionReviewOut",
    "AdmissionStatus",
    "ArrivalIn",
    "BatchArrival",
    "BatchDeparture",
    "BatchIn",
    "BatchOut",
    "BestFitPolicy",
    "ClusterCreate",
    "ClusterOut",
    "ClusterOutJobTypesType0Item",
    "ClusterOutPolicy",
    "ClusterOutServerPoolsType0Item",
    "ClusterPage",
    "ClusterUpdate",
    "DecisionSummary",
    "DecisionSummaryDecisions",
    "DecisionSummaryReasons",
    "DepartureIn",
    "DeploymentIn",
    "DeploymentPrior",
    "DraPolicy",
    "DraPolicyMigrationsType1",
    "DraPolicyPreemptionType1",
    "EventPage",
    "ExtenderArgs",
    "ExtenderArgsPod",
    "ExtenderBindingArgs",
    "ExtenderBindingResult",
    "ExtenderFilterResult",
    "ExtenderFilterResultFailedandunresolvablenodes",
    "ExtenderFilterResultFailednodes",
    "FirstFitPolicy",
    "GammaPriors",
    "GetClusterStateResponseGetclusterstate",
    "GetDeploymentResponseGetdeployment",
    "GetServerResponseGetserver",
    "GreedyQueuePolicy",
    "GreedyQueuePolicyClock",
    "GreedyQueuePolicyKind",
    "GreedyQueuePolicyOrder",
    "GroupVersionResource",
    "GrowthStep",
    "GrowthStepAnchorsType0Item",
    "HeldJob",
    "HeldJobStatus",
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
    "MomentClusterCreate",
    "MomentPolicy",
    "MomentPolicyKind",
    "NodeList",
    "NodeListItemsItem",
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
    "PlacementOut",
    "PlacementOutDecision",
    "PlacementOutDetails",
    "PowerOfDPolicy",
    "PreemptionOut",
    "PriorObservations",
    "Problem",
    "ProblemErrorsItem",
    "QueueArrivalOut",
    "QueueArrivalOutDecision",
    "QueueReleaseOut",
    "QueueReleaseOutDecision",
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
    "ReservationPolicy",
    "ReservationPolicyKind",
    "ReservationPolicyParams",
    "ReservationSlots",
    "ResourceIn",
    "RmsPolicy",
    "RmsPolicyClock",
    "RmsPolicyClockRateType1",
    "RmsPolicyMaxJobsRule",
    "RmsPolicyMuType1",
    "RmsPolicyRouting",
    "RmsPolicySampling",
    "ScaleEvent",
    "ScaleInOut",
    "ScaleOutOut",
    "ScaleOutOutDecision",
    "ServerPage",
    "ServerPoolIn",
    "ServerPoolInCapacity",
    "ServerSummary",
    "ServerSummaryConfigurationType0",
    "ServerSummaryGroupType0",
    "ServerSummaryJobsPerType",
    "StartedJob",
    "ThresholdDerivation",
    "ThresholdDerivationAnchorsType0Item",
    "ThresholdDerivationScaleType0",
    "ThresholdDerivationSource",
    "TickIn",
    "TickOut",
    "TickOutDecision",
)
