from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.gang_in import GangIn
from ...models.gang_out import GangOut
from ...models.problem import Problem
from ...models.queue_gang_out import QueueGangOut
from ...types import UNSET, Response, Unset


def _get_kwargs(
    cluster_id: str,
    *,
    body: GangIn,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/clusters/{cluster_id}/gangs".format(
            cluster_id=quote(str(cluster_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GangOut | Problem | QueueGangOut | None:
    if response.status_code == 200:
        response_200 = GangOut.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = QueueGangOut.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

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

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[GangOut | Problem | QueueGangOut]:
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
    body: GangIn,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[GangOut | Problem | QueueGangOut]:
    """A gang of jobs arrives: place (or start) every member or none

    Args:
        cluster_id (str):
        idempotency_key (None | str | Unset):
        body (GangIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GangOut | Problem | QueueGangOut]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: GangIn,
    idempotency_key: None | str | Unset = UNSET,
) -> GangOut | Problem | QueueGangOut | None:
    """A gang of jobs arrives: place (or start) every member or none

    Args:
        cluster_id (str):
        idempotency_key (None | str | Unset):
        body (GangIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GangOut | Problem | QueueGangOut
    """

    return sync_detailed(
        cluster_id=cluster_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: GangIn,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[GangOut | Problem | QueueGangOut]:
    """A gang of jobs arrives: place (or start) every member or none

    Args:
        cluster_id (str):
        idempotency_key (None | str | Unset):
        body (GangIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GangOut | Problem | QueueGangOut]
    """

    kwargs = _get_kwargs(
        cluster_id=cluster_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    cluster_id: str,
    *,
    client: AuthenticatedClient,
    body: GangIn,
    idempotency_key: None | str | Unset = UNSET,
) -> GangOut | Problem | QueueGangOut | None:
    """A gang of jobs arrives: place (or start) every member or none

    Args:
        cluster_id (str):
        idempotency_key (None | str | Unset):
        body (GangIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GangOut | Problem | QueueGangOut
    """

    return (
        await asyncio_detailed(
            cluster_id=cluster_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
