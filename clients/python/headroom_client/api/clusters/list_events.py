from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.event_page import EventPage
from ...models.list_events_order import ListEventsOrder
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    cluster_id: str,
    *,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    order: ListEventsOrder | Unset = ListEventsOrder.ASC,
    decision: None | str | Unset = UNSET,
    reason: None | str | Unset = UNSET,
    job_id: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order.value

    params["order"] = json_order

    json_decision: None | str | Unset
    if isinstance(decision, Unset):
        json_decision = UNSET
    else:
        json_decision = decision
    params["decision"] = json_decision

    json_reason: None | str | Unset
    if isinstance(reason, Unset):
        json_reason = UNSET
    else:
        json_reason = reason
    params["reason"] = json_reason

    json_job_id: None | str | Unset
    if isinstance(job_id, Unset):
        json_job_id = UNSET
    else:
        json_job_id = job_id
    params["job_id"] = json_job_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/clusters/{cluster_id}/events".format(
            cluster_id=quote(str(cluster_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EventPage | Problem | None:
    if response.status_code == 200:
        response_200 = EventPage.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EventPage | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    order: ListEventsOrder | Unset = ListEventsOrder.ASC,
    decision: None | str | Unset = UNSET,
    reason: None | str | Unset = UNSET,
    job_id: None | str | Unset = UNSET,
) -> Response[EventPage | Problem]:
    """The cluster's decision log, oldest first (or newest first), filtered

    Args:
        cluster_id (str):
        limit (int | Unset):  Default: 100.
        cursor (None | str | Unset): The previous page's next_cursor: events after it (oldest
            first) or before it (newest first).
        order (ListEventsOrder | Unset): asc: oldest first (tail the log with the cursor); desc:
            newest first. Default: ListEventsOrder.ASC.
        decision (None | str | Unset): Only this decision, e.g. rejected.
        reason (None | str | Unset): Only this reason code.
        job_id (None | str | Unset): Only events about this job (or deployment): those that name
            it, the gang it came in, and the one that preempted it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventPage | Problem]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        limit=limit,
        cursor=cursor,
        order=order,
        decision=decision,
        reason=reason,
        job_id=job_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    order: ListEventsOrder | Unset = ListEventsOrder.ASC,
    decision: None | str | Unset = UNSET,
    reason: None | str | Unset = UNSET,
    job_id: None | str | Unset = UNSET,
) -> EventPage | Problem | None:
    """The cluster's decision log, oldest first (or newest first), filtered

    Args:
        cluster_id (str):
        limit (int | Unset):  Default: 100.
        cursor (None | str | Unset): The previous page's next_cursor: events after it (oldest
            first) or before it (newest first).
        order (ListEventsOrder | Unset): asc: oldest first (tail the log with the cursor); desc:
            newest first. Default: ListEventsOrder.ASC.
        decision (None | str | Unset): Only this decision, e.g. rejected.
        reason (None | str | Unset): Only this reason code.
        job_id (None | str | Unset): Only events about this job (or deployment): those that name
            it, the gang it came in, and the one that preempted it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventPage | Problem
    """

    return sync_detailed(
        cluster_id=cluster_id,
        client=client,
        limit=limit,
        cursor=cursor,
        order=order,
        decision=decision,
        reason=reason,
        job_id=job_id,
    ).parsed


async def asyncio_detailed(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    order: ListEventsOrder | Unset = ListEventsOrder.ASC,
    decision: None | str | Unset = UNSET,
    reason: None | str | Unset = UNSET,
    job_id: None | str | Unset = UNSET,
) -> Response[EventPage | Problem]:
    """The cluster's decision log, oldest first (or newest first), filtered

    Args:
        cluster_id (str):
        limit (int | Unset):  Default: 100.
        cursor (None | str | Unset): The previous page's next_cursor: events after it (oldest
            first) or before it (newest first).
        order (ListEventsOrder | Unset): asc: oldest first (tail the log with the cursor); desc:
            newest first. Default: ListEventsOrder.ASC.
        decision (None | str | Unset): Only this decision, e.g. rejected.
        reason (None | str | Unset): Only this reason code.
        job_id (None | str | Unset): Only events about this job (or deployment): those that name
            it, the gang it came in, and the one that preempted it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventPage | Problem]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        limit=limit,
        cursor=cursor,
        order=order,
        decision=decision,
        reason=reason,
        job_id=job_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    order: ListEventsOrder | Unset = ListEventsOrder.ASC,
    decision: None | str | Unset = UNSET,
    reason: None | str | Unset = UNSET,
    job_id: None | str | Unset = UNSET,
) -> EventPage | Problem | None:
    """The cluster's decision log, oldest first (or newest first), filtered

    Args:
        cluster_id (str):
        limit (int | Unset):  Default: 100.
        cursor (None | str | Unset): The previous page's next_cursor: events after it (oldest
            first) or before it (newest first).
        order (ListEventsOrder | Unset): asc: oldest first (tail the log with the cursor); desc:
            newest first. Default: ListEventsOrder.ASC.
        decision (None | str | Unset): Only this decision, e.g. rejected.
        reason (None | str | Unset): Only this reason code.
        job_id (None | str | Unset): Only events about this job (or deployment): those that name
            it, the gang it came in, and the one that preempted it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventPage | Problem
    """

    return (
        await asyncio_detailed(
            cluster_id=cluster_id,
            client=client,
            limit=limit,
            cursor=cursor,
            order=order,
            decision=decision,
            reason=reason,
            job_id=job_id,
        )
    ).parsed
